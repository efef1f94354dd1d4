import Foundation
import Logging
import MoonbladeHost

/// A plugin host on a dynamic JSON state, as the `run` and `repl` commands drive it.
struct PluginSession {
    let host: PluginHost<JSONValue>

    /// Loads `plugins` with the standard dependencies (`storage` under `dataDirectory`, `clock`, `log`).
    ///
    /// - Throws: ``ExitStatus/pluginFailed`` after reporting every plugin that did not load.
    init(plugins: [String], initialState: JSONValue, dataDirectory: String, logLevel: Logger.Level) throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            logger: Self.logger("moonblade.plugin", level: logLevel))
        host = try PluginHost(
            plugins: plugins, initialState: initialState, dependencies: dependencies,
            configuration: .init(logger: Self.quietHostLogger))
        guard host.loadErrors.isEmpty else {
            host.loadErrors.forEach(Console.report)
            throw ExitStatus.pluginFailed.code
        }
    }

    /// The host logs refused plugins; the commands report them themselves as `error:` lines, so the
    /// host's own log keeps to what nothing else reports.
    static var quietHostLogger: Logger { logger("moonblade.host", level: .critical) }

    /// A logger writing to standard error.
    static func logger(_ label: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = level
        return logger
    }

    var state: JSONValue { host.state }

    /// Dispatches `request` and waits until it is done: nil for an updater, the side effect's value
    /// (`.null` when it returns nothing) for a side effect.
    @discardableResult
    func dispatch(_ request: DispatchRequest) async throws -> JSONValue? {
        if host.plugins.contains(where: { $0.sideEffects.contains(request.name) }) {
            return try await host.dispatch(request.name, request.payload, returning: JSONValue.self).value
        }
        try await host.dispatch(request.name, request.payload).value
        return nil
    }

    /// Every item the plugins offer, sorted: updaters and side effects alike.
    var itemNames: [String] {
        host.plugins.flatMap { $0.updaters + $0.sideEffects }.sorted()
    }
}
