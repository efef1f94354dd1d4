import Logging

/// A log handler that keeps what is logged through it, so tests can see what the host reported.
struct RecordingLogHandler: LogHandler {
    struct Entry: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// Where the entries go: one per test.
    final class Log: Sendable {
        let entries = Locked<[Entry]>([])

        /// A logger that records here.
        var logger: Logger { Logger(label: "moonblade.tests") { _ in RecordingLogHandler(log: self) } }

        /// Each entry as `level: message`.
        var lines: [String] { entries.withLock { $0.map { "\($0.level): \($0.message)" } } }
    }

    let log: Log
    var metadata: Logger.Metadata = [:]
    var logLevel = Logger.Level.trace

    func log(event: LogEvent) {
        log.entries.withLock {
            $0.append(Entry(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
        }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
