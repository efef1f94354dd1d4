import ArgumentParser
import Logging
import MoonbladeHost
import MoonbladeJournal

/// The options of every command that runs plugins: which plugins, and where their data lives.
struct HostOptions: ParsableArguments {
    @Argument(help: "Plugin folders, each with a plugin.lua.")
    var plugins: [String]

    @Option(
        help: ArgumentHelp("The directory the storage dependency keeps its JSON files in.", valueName: "dir"))
    var dataDir = ".moonblade"

    @Option(
        help: ArgumentHelp("The lowest level of log entries shown on standard error.", valueName: "level"))
    var logLevel: Logger.Level = .info

    /// Loads the plugins on `initialState` (else the journal's latest state, else `{}`) and lets their
    /// `on_start` work finish; reports and exits on a plugin that does not load.
    func session(initialState: JSONValue? = nil, journal: Journal? = nil) async throws -> PluginSession {
        try await PluginSession(
            plugins: plugins, initialState: initialState, dataDirectory: dataDir, logLevel: logLevel, journal: journal)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
