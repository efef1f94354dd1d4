import Foundation
import Logging
import Moonblade
import MoonbladeHost

/// A plugin host on a dynamic JSON state, as the `run` and `repl` commands drive it.
struct PluginSession {
    let host: PluginHost<JSONValue>

    /// Loads `plugins` with the standard dependencies (`storage` under `dataDirectory`, `clock` and
    /// `log`); plugin log entries and the host's own go to standard error from `logLevel` up.
    ///
    /// - Throws: ``ExitStatus/pluginFailed`` after reporting every plugin that did not load.
    init(plugins: [String], initialState: JSONValue, dataDirectory: String, logLevel: Logger.Level) throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            logger: ConsoleLogHandler.logger("moonblade.plugin", threshold: LogThreshold(logLevel)))
        // The host logs the plugins it refuses, which the command reports itself as `error:` lines:
        // its log is held back while loading and speaks afterwards (failing observer rules, say).
        let hostThreshold = LogThreshold(.critical)
        host = try PluginHost(
            plugins: plugins, initialState: initialState, dependencies: dependencies,
            configuration: .init(logger: ConsoleLogHandler.logger("moonblade.host", threshold: hostThreshold))
        )
        hostThreshold.level = logLevel
        guard host.loadErrors.isEmpty else {
            host.loadErrors.forEach(Console.report)
            throw ExitStatus.pluginFailed.code
        }
    }

    var state: JSONValue { host.state }

    /// Dispatches `request` and waits until it is done, and so is everything it set off (an observer's
    /// save, say): nil for an updater, the side effect's value (`.null` when it returns nothing) for a
    /// side effect.
    @discardableResult
    func dispatch(_ request: DispatchRequest) async throws -> JSONValue? {
        let result: JSONValue?
        if host.plugins.contains(where: { $0.sideEffects.contains(request.name) }) {
            result = try await host.dispatch(request.name, request.payload, returning: JSONValue.self).value
        } else {
            try await host.dispatch(request.name, request.payload).value
            result = nil
        }
        await host.store.waitUntilIdle()
        return result
    }

    /// Every item the plugins offer, sorted: updaters and side effects alike.
    var itemNames: [String] {
        host.plugins.flatMap { $0.updaters + $0.sideEffects }.sorted()
    }
}
