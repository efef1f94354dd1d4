import Logging
import Moonblade

/// swift-log entries as one line each on standard error: `warning moonblade.host: message key=value`.
///
/// Handlers made from one ``LogThreshold`` share their level, so a command can hold a logger back for a
/// while and let it speak later (see ``PluginSession``).
struct ConsoleLogHandler: LogHandler {
    let label: String
    let threshold: LogThreshold
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { threshold.level }
        set { threshold.level = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // The commands report reloads from the host's event stream, in their own words.
        guard event.metadata?["reload"] == nil else { return }
        let fields = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
            .sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        Console.printError("\(event.level) \(label): \(event.message)\(fields)")
    }

    /// A logger writing through a handler of this kind at `threshold`'s level.
    static func logger(_ label: String, threshold: LogThreshold) -> Logger {
        Logger(label: label) { label in ConsoleLogHandler(label: label, threshold: threshold) }
    }
}

/// A log level that several handlers share and that can change while they are in use.
final class LogThreshold: @unchecked Sendable {
    // @unchecked Sendable: `current` is read and written only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees).
    private let lock = Lock()
    private var current: Logger.Level

    init(_ level: Logger.Level) {
        current = level
    }

    var level: Logger.Level {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
