import ArgumentParser
import Logging
import Metrics
import MoonbladeHost
import MoonbladeJournal
import Tracing

/// The options of every command that runs plugins: which plugins, and where their data lives.
struct HostOptions: ParsableArguments {
    @Argument(help: "Plugin folders, each with a plugin.lua; or a folder of plugin folders (before or after the options).")
    var plugins: [String] = []

    @Option(
        help: ArgumentHelp("The directory the storage dependency keeps its JSON files in.", valueName: "dir"))
    var dataDir = ".moonblade"

    @Option(
        help: ArgumentHelp("The lowest level of log entries shown on standard error.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Flag(
        inversion: .prefixedNo,
        help: "Start each log line with the time (default: when standard error is not a terminal).")
    var timestamps: Bool?

    /// Moves the plugin folders at the end of `words`, the values of an option that takes every word
    /// up to the next option (`--dispatch`, `--post`), to ``plugins``: in `run --dispatch x.y '{…}'
    /// DIR`, DIR is a plugin folder. A word is a folder when one exists by that name and it is no item
    /// name (an item name is never read as a folder).
    mutating func takeFolders(trailing words: inout [String]) {
        var folders: [String] = []
        while let last = words.last, !ItemName.isName(last[...]), FileReader.isFolder(last) {
            folders.insert(words.removeLast(), at: 0)
        }
        plugins += folders
    }

    /// Refuses a command line that names no plugin folder, before or after the options.
    func requireFolders() throws {
        guard !plugins.isEmpty else {
            throw ValidationError("Missing expected argument '<plugins> ...' (a plugin folder, or a folder of them)")
        }
    }

    /// Loads the plugins on `initialState` (else the journal's latest state, else `{}`) and lets their
    /// `on_start` work finish; reports and exits on a folder that is not a plugin (see
    /// ``PluginFolders``) and, unless `keepingBrokenPlugins`, on a plugin that does not load.
    ///
    /// - Parameters:
    ///   - tracer: where the host's spans go (`--trace`); none by default.
    ///   - metrics: where the host's metrics go (`--metrics`); none by default.
    func session(
        initialState: JSONValue? = nil, journal: Journal? = nil, keepingBrokenPlugins: Bool = false,
        tracer: (any Tracer)? = nil, metrics: (any MetricsFactory)? = nil
    ) async throws -> PluginSession {
        var configuration = PluginHost<JSONValue>.Configuration(
            logger: ConsoleLogHandler.hostLogger(level: logLevel, timestamps: timestamps))
        configuration.tracer = tracer
        configuration.metricsFactory = metrics
        return try await PluginSession(
            plugins: try PluginFolders.resolve(plugins), initialState: initialState, dataDirectory: dataDir,
            logLevel: logLevel, timestamps: timestamps, keepingBrokenPlugins: keepingBrokenPlugins, journal: journal,
            configuration: configuration)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
