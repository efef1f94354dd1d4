import Logging

import Foundation

/// swift-log entries as one line each on standard error: `warning moonblade.host: message key=value`,
/// or for a plugin's entry `info [todo] message key=value`; with `timestamps`, an ISO 8601 time first.
struct ConsoleLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    /// Whether each line starts with the time: by default when standard error is not a terminal (a
    /// log file or a CI log, read later).
    var timestamps = Console.errorIsTerminal == false
    /// Whether entries the commands report themselves, in their own words, are left out: the host's
    /// refusal of a plugin (`load` metadata: an `error:` line) and its reload steps (`reload` metadata:
    /// reported from the host's event stream). Only for the host's logger: a plugin's fields are its own.
    var leavesOutCommandReports = false
    /// Whether an entry's `plugin` field is shown first, as `[todo]`, instead of the label: for the
    /// plugins' own log, where it says who logged.
    var namesPlugin = false
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if leavesOutCommandReports, event.metadata?["load"] != nil || event.metadata?["reload"] != nil {
            return
        }
        var fields = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        let plugin = namesPlugin ? fields.removeValue(forKey: "plugin") : nil
        let source = plugin.map { "[\($0)]" } ?? "\(label):"
        let shown = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let time = timestamps ? Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) + " " : ""
        Console.printError("\(time)\(event.level) \(source) \(event.message)\(shown)")
    }

    /// The host's logger, leaving out what the commands report themselves, from `level` up.
    static func hostLogger(level: Logger.Level, timestamps: Bool? = nil) -> Logger {
        Logger(label: "moonblade.host") { label in
            var handler = ConsoleLogHandler(label: label, logLevel: level, leavesOutCommandReports: true)
            handler.timestamps = timestamps ?? handler.timestamps
            return handler
        }
    }

    /// The logger of the plugins' `ctx.deps.log`, every entry from `level` up.
    static func pluginLogger(level: Logger.Level, timestamps: Bool? = nil) -> Logger {
        Logger(label: "moonblade.plugin") { label in
            var handler = ConsoleLogHandler(label: label, logLevel: level, namesPlugin: true)
            handler.timestamps = timestamps ?? handler.timestamps
            return handler
        }
    }
}
