import Foundation
import Logging

/// swift-log entries as one line each on standard error: `warning moonblade.host: message key=value`,
/// or for a plugin's entry `info [todo] message key=value`; with `timestamps`, an ISO 8601 time first.
struct ConsoleLogHandler: LogHandler {
    let label: String
    /// The lowest level shown.
    var shownLevel: Logger.Level
    /// Whether each line starts with the time: by default when standard error is not a terminal (a
    /// log file or a CI log, read later).
    var timestamps = Console.errorIsTerminal == false
    /// Whether this is the host's logger: entries the commands report themselves, in their own words,
    /// are left out (the host's refusal of a plugin, `load` metadata: an `error:` line; its reload
    /// steps, `reload` metadata: reported from the host's event stream), and its failures count in
    /// ``LoggedFailures`` even below the level shown. A plugin's log is its own.
    var isHostLog = false
    /// Whether an entry's `plugin` field is shown first, as `[todo]`, instead of the label: for the
    /// plugins' own log, where it says who logged.
    var namesPlugin = false
    var metadata: Logger.Metadata = [:]

    /// What swift-log asks before it calls ``log(event:)``: the host's failures always get through.
    var logLevel: Logger.Level {
        get { isHostLog ? min(shownLevel, .error) : shownLevel }
        set { shownLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if isHostLog, event.metadata?["load"] != nil || event.metadata?["reload"] != nil {
            return
        }
        if isHostLog, event.level >= .error {
            LoggedFailures.shared.record()
        }
        guard event.level >= shownLevel else { return }
        var fields = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        let plugin = namesPlugin ? fields.removeValue(forKey: "plugin") : nil
        let source = plugin.map { "[\($0)]" } ?? "\(label):"
        let shown = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let time = timestamps ? Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) + " " : ""
        Console.printError("\(time)\(event.level) \(source) \(event.message)\(shown)")
    }

    /// The host's logger, leaving out what the commands report themselves, from `level` up; its
    /// failures count in ``LoggedFailures`` whatever the level shown.
    static func hostLogger(level: Logger.Level, timestamps: Bool? = nil) -> Logger {
        Logger(label: "moonblade.host") { label in
            var handler = ConsoleLogHandler(label: label, shownLevel: level, isHostLog: true)
            handler.timestamps = timestamps ?? handler.timestamps
            return handler
        }
    }

    /// The logger of the plugins' `ctx.deps.log`, every entry from `level` up.
    static func pluginLogger(level: Logger.Level, timestamps: Bool? = nil) -> Logger {
        Logger(label: "moonblade.plugin") { label in
            var handler = ConsoleLogHandler(label: label, shownLevel: level, namesPlugin: true)
            handler.timestamps = timestamps ?? handler.timestamps
            return handler
        }
    }
}
