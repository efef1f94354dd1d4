import Foundation
import Logging
import MoonbladeHost

/// A plugin host on a dynamic JSON state, as the `run` and `repl` commands drive it.
struct PluginSession {
    let host: PluginHost<JSONValue>

    /// Loads `plugins` with the standard dependencies (`storage` under `dataDirectory`, `clock` and
    /// `log`) and waits until what the plugins' `on_start` rules set off is done; plugin log entries and
    /// the host's own (a failing `on_start` item, say) go to standard error from `logLevel` up, through
    /// `configuration`'s logger.
    ///
    /// - Throws: ``ExitStatus/pluginFailed`` after reporting every plugin that did not load.
    init(
        plugins: [String], initialState: JSONValue, dataDirectory: String, logLevel: Logger.Level,
        configuration: PluginHost<JSONValue>.Configuration
    ) async throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            logger: ConsoleLogHandler.pluginLogger(level: logLevel))
        host = try PluginHost(
            plugins: plugins, initialState: initialState, dependencies: dependencies,
            configuration: configuration)
        guard host.loadErrors.isEmpty else {
            host.loadErrors.forEach(Console.report)
            throw ExitStatus.pluginFailed.code
        }
        await host.store.waitUntilIdle()
    }

    var state: JSONValue { host.state }

    /// Dispatches `request` and waits until it is done, and so is everything it set off (an observer's
    /// save, say): the side effect's value, or nil for an updater or a side effect that returns nothing.
    @discardableResult
    func dispatch(_ request: DispatchRequest) async throws -> JSONValue? {
        try await host.dispatchAndSettle(request.name, request.payload)
    }

    /// Every item the plugins offer, sorted: updaters and side effects alike.
    var itemNames: [String] {
        host.plugins.flatMap { $0.updaters + $0.sideEffects }.sorted()
    }
}
