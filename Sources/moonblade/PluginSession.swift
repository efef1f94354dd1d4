import Foundation
import Logging
import MoonbladeHost
import MoonbladeJournal

/// A plugin host on a dynamic JSON state, as the `run` and `repl` commands drive it.
struct PluginSession {
    let host: PluginHost<JSONValue>
    /// Where every dispatch is recorded, when the session keeps a journal.
    let journal: Journal?

    /// Loads `plugins` with the standard dependencies (`storage` under `dataDirectory`, `clock` and
    /// `log`) and waits until what the plugins' `on_start` rules set off is done; plugin log entries and
    /// the host's own (a failing `on_start` item, say) go to standard error from `logLevel` up, through
    /// `configuration`'s logger.
    ///
    /// Every plugin that did not load is reported; with `keepingBrokenPlugins` the session starts with
    /// the others (the repl, whose watcher loads a broken one once it is fixed). With a `journal`, every
    /// dispatch is recorded in it and the session starts from its latest state, unless `initialState`
    /// is given (see `PluginHost.init(plugins:journal:...)`). `timestamps` nil: log lines carry the time
    /// when standard error is not a terminal.
    ///
    /// - Throws: ``ExitStatus/pluginFailed`` when a plugin did not load, unless `keepingBrokenPlugins`.
    init(
        plugins: [String], initialState: JSONValue?, dataDirectory: String, logLevel: Logger.Level,
        timestamps: Bool? = nil, keepingBrokenPlugins: Bool, journal: Journal? = nil,
        configuration: PluginHost<JSONValue>.Configuration
    ) async throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            logger: ConsoleLogHandler.pluginLogger(level: logLevel, timestamps: timestamps))
        if let journal {
            do {
                host = try PluginHost(
                    plugins: plugins, journal: journal, initialState: initialState, dependencies: dependencies,
                    configuration: configuration)
            } catch let error as PluginError {
                // The journal's state could not be brought up to the loaded plugins' versions (a
                // failing `migrate`, or a state of a later version): the plugins cannot run on it.
                Console.report(error)
                throw ExitStatus.pluginFailed.code
            }
        } else {
            host = try PluginHost(
                plugins: plugins, initialState: initialState ?? JSONValue(), dependencies: dependencies,
                configuration: configuration)
        }
        self.journal = journal
        host.loadErrors.forEach(Console.report)
        if !host.loadErrors.isEmpty, !keepingBrokenPlugins {
            throw ExitStatus.pluginFailed.code
        }
        await host.settle()
    }

    var state: JSONValue { host.state }

    /// Dispatches `request` and waits until it is done, and so is everything it set off (an observer's
    /// save, say): the side effect's value, or nil for an updater or a side effect that returns nothing.
    @discardableResult
    func dispatch(_ request: DispatchRequest) async throws -> JSONValue? {
        try await host.dispatchAndSettle(request.name, request.payload)
    }

    /// Posts the notification `request` names with its payload and waits until what its
    /// `on_notification` rules set off is done (a rule that fails is logged).
    func post(_ request: DispatchRequest) async {
        host.post(request.name, payload: request.payload)
        await host.store.waitUntilIdle()
    }

    /// Every item the plugins offer, sorted: updaters and side effects alike.
    var itemNames: [String] {
        host.plugins.flatMap { $0.updaters + $0.sideEffects }.sorted()
    }
}
