import ArgumentParser
import Logging
import Metrics
import MoonbladeHost
import Tracing

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

    /// Loads the plugins on `initialState` and lets their `on_start` work finish; reports and exits on a
    /// plugin that does not load.
    ///
    /// - Parameters:
    ///   - tracer: where the host's spans go (`--trace`); none by default.
    ///   - metrics: where the host's metrics go (`--metrics`); none by default.
    func session(
        initialState: JSONValue = JSONValue(), tracer: (any Tracer)? = nil, metrics: (any MetricsFactory)? = nil
    ) async throws -> PluginSession {
        var configuration = PluginHost<JSONValue>.Configuration(logger: ConsoleLogHandler.hostLogger(level: logLevel))
        configuration.tracer = tracer
        configuration.metricsFactory = metrics
        return try await PluginSession(
            plugins: plugins, initialState: initialState, dataDirectory: dataDir, logLevel: logLevel,
            configuration: configuration)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
