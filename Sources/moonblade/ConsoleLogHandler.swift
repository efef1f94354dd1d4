import Logging

/// swift-log entries as one line each on standard error: `warning moonblade.host: message key=value`.
struct ConsoleLogHandler: LogHandler {
    let label: String
    /// The lowest level shown.
    var shownLevel: Logger.Level
    /// Whether this is the host's logger: entries the commands report themselves, in their own words,
    /// are left out (the host's refusal of a plugin, `load` metadata: an `error:` line; its reload
    /// steps, `reload` metadata: reported from the host's event stream), and its failures count in
    /// ``LoggedFailures`` even below the level shown. A plugin's log is its own.
    var isHostLog = false
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
        let fields = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
            .sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        Console.printError("\(event.level) \(label): \(event.message)\(fields)")
    }

    /// The host's logger, leaving out what the commands report themselves, from `level` up; its
    /// failures count in ``LoggedFailures`` whatever the level shown.
    static func hostLogger(level: Logger.Level) -> Logger {
        Logger(label: "moonblade.host") { label in
            ConsoleLogHandler(label: label, shownLevel: level, isHostLog: true)
        }
    }

    /// The logger of the plugins' `ctx.deps.log`, every entry from `level` up.
    static func pluginLogger(level: Logger.Level) -> Logger {
        Logger(label: "moonblade.plugin") { label in ConsoleLogHandler(label: label, shownLevel: level) }
    }
}
