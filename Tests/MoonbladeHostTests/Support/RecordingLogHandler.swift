import Logging
import Synchronization

/// A log handler that keeps the messages, so tests can see what the host reported.
struct RecordingLogHandler: LogHandler {
    final class Messages: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    let messages: Messages
    var logLevel = Logger.Level.trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.lines.withLock { $0.append("\(event.level): \(event.message)") }
    }

    /// A logger that records into `messages`.
    static func logger(into messages: Messages) -> Logger {
        Logger(label: "moonblade.tests") { _ in RecordingLogHandler(messages: messages) }
    }
}
