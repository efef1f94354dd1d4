import Logging

/// swift-log entries as one line each on standard error: `warning moonblade.host: message key=value`.
struct ConsoleLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    /// Whether entries the commands report themselves, in their own words, are left out: the host's
    /// refusal of a plugin (`load` metadata: an `error:` line) and its reload steps (`reload` metadata:
    /// reported from the host's event stream). Only for the host's logger: a plugin's fields are its own.
    var leavesOutCommandReports = false
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if leavesOutCommandReports, event.metadata?["load"] != nil || event.metadata?["reload"] != nil {
            return
        }
        let fields = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
            .sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        Console.printError("\(event.level) \(label): \(event.message)\(fields)")
    }

    /// The host's logger, leaving out what the commands report themselves, from `level` up.
    static func hostLogger(level: Logger.Level) -> Logger {
        Logger(label: "moonblade.host") { label in
            ConsoleLogHandler(label: label, logLevel: level, leavesOutCommandReports: true)
        }
    }

    /// The logger of the plugins' `ctx.deps.log`, every entry from `level` up.
    static func pluginLogger(level: Logger.Level) -> Logger {
        Logger(label: "moonblade.plugin") { label in ConsoleLogHandler(label: label, logLevel: level) }
    }
}
