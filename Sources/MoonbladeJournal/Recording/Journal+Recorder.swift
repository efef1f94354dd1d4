import Foundation
import Moonblade
import MoonbladeHost

extension Journal {
    /// The store interceptor that records every item that passes it: put it innermost, where items
    /// reach the store as they run (`PluginHost/init(plugins:journal:initialState:dependencies:interceptors:configuration:)`
    /// does). A plain `Store` can use it too, as the last of its interceptors.
    ///
    /// Updaters are recorded with their outcome and what they changed; side effects as started (what
    /// they dispatch is recorded as it runs). With the strict setting a failed commit fails the
    /// dispatch with a ``JournalError`` (the state has already changed; the journal lacks it).
    public func recorder() -> StoreInterceptor {
        { [writer] context in
            { next in
                { item in
                    var recorded = RecordedItem(item)
                    let jump = recorded.isLuaItem ? nil : (item as? any TimeTravelJump)?.target
                    if jump != nil { recorded.name = "goto" }
                    let start = ContinuousClock.now
                    do {
                        try next(item)
                    } catch {
                        try writer.record(
                            recorded, outcome: .failed(Self.oneLine(error)), duration: start.duration(to: .now),
                            newState: nil, target: jump)
                        throw error
                    }
                    let duration = start.duration(to: .now)
                    if recorded.isUpdater {
                        let (state, stateVersion) = context.anyStateWithVersion
                        // Read before the call: a closure called among its arguments made Swift copy
                        // `recorded` whole for the call (~300 instructions a dispatch).
                        let pluginsAfterward = recorded.pluginsAfterward?()
                        try writer.record(
                            recorded, outcome: .applied, duration: duration, newState: state, target: jump,
                            stateVersion: stateVersion, pluginsAfterward: pluginsAfterward)
                    } else {
                        try writer.record(recorded, outcome: .started, duration: duration, newState: nil)
                    }
                }
            }
        }
    }

    /// The outermost interceptor of a journaled host: holds an item's entries until every interceptor
    /// has handed it on, so a change that an interceptor's failure rolls back (the store undoes it) is
    /// recorded as failed, not applied. ``recorder()`` alone records each change as the store applies it.
    func outcomeInterceptor() -> StoreInterceptor {
        { [writer] context in
            { next in
                { item in
                    writer.beginItem()
                    do {
                        try next(item)
                    } catch {
                        try writer.endItem(failure: error, stateVersion: context.stateVersion)
                        throw error
                    }
                    try writer.endItem(failure: nil, stateVersion: context.stateVersion)
                }
            }
        }
    }

    /// The first line of an error's description: what a journal row and a history line show.
    static func oneLine(_ error: any Error) -> String {
        String(String(describing: error).prefix { $0 != "\n" })
    }

    /// Tells the journal the state the store starts from, before the store runs anything: the
    /// first entry's patch is computed against it. A state other than the journal's latest is written
    /// as a snapshot, so the journal can rebuild every state after it. The `PluginHost` initializer
    /// that takes a journal calls this; call it yourself when you put ``recorder()`` in a plain `Store`.
    public func begin<S: Encodable>(with initialState: S) throws(JournalError) {
        try begin(with: initialState, recovered: state(at: nil), plugins: [])
    }

    /// ``begin(with:)`` given the journal's latest state, already rebuilt, and the `plugins` the
    /// initial state is kept by (their versions recorded where they changed).
    func begin<S: Encodable>(with initialState: S, recovered: JSONValue?, plugins: [PluginInfo]) throws(JournalError) {
        let json: JSONValue
        do {
            json = try JSONValue(encoding: initialState)
        } catch {
            throw JournalError(file: file, problem: "the initial state has no JSON form: \(error)")
        }
        try writer.begin(with: json, recovered: recovered, plugins: plugins)
    }
}

extension PluginHost {
    /// Loads the plugins like `init(plugins:initialState:dependencies:interceptors:configuration:)`
    /// and records every dispatch in `journal`, starting from the journal's latest state (its last
    /// snapshot plus the patches after it) unless `initialState` is given.
    ///
    /// The journal's state is brought up to the loaded plugins' versions first, as a reload would: each
    /// plugin whose version is above the one the state was recorded under runs its `migrate(state,
    /// from_version)` (see `PluginMigrator`). No other plugin code runs: a recovered state is put back,
    /// not started afresh, so no `on_start` rule fires (starting only to look appends nothing). A
    /// given `initialState`, or an empty journal, starts afresh: the `on_start` rules fire. A given
    /// `initialState` is taken as kept by the loaded versions.
    ///
    /// A starting state that differs from the journal's (given, or migrated) is written as a snapshot,
    /// so the journal can rebuild every later state; the loaded plugins' versions are recorded where
    /// they changed. Call ``Journal/close()`` when done, for the shutdown snapshot.
    ///
    /// - Throws: ``JournalError`` when the journal's state cannot be rebuilt or is not an `S`; the
    ///   `PluginError` of a migration that fails (item `plugin.migrate`, with its `file:line`), of a
    ///   state recorded under a later plugin version than the loaded one (`PluginError/Kind/downgrade`),
    ///   or of a VM that cannot be created. Nothing is written to the journal then.
    public convenience init(
        plugins directories: [String],
        journal: Journal,
        initialState: S? = nil,
        dependencies: PluginDependencies = PluginDependencies(),
        interceptors: [StoreInterceptor] = [],
        configuration: Configuration = Configuration()
    ) throws {
        // The journal's state is rebuilt once: to start from, and to tell whether a given one differs.
        let recovered = try journal.state(at: nil)
        let loaded = try LoadedPlugins<S>(plugins: directories, dependencies: dependencies, configuration: configuration)
        let start =
            if let initialState {
                initialState
            } else if let recovered {
                try loaded.migrator.migrate(journal.decode(recovered, as: S.self), recordedUnder: journal.pluginVersions())
            } else {
                S()
            }
        try journal.begin(with: start, recovered: recovered, plugins: loaded.migrator.plugins)
        var configuration = configuration
        if initialState == nil, recovered != nil { configuration.firesStartRules = false }
        self.init(
            loaded: loaded, initialState: start,
            interceptors: [journal.outcomeInterceptor()] + interceptors, innerInterceptors: [journal.recorder()],
            configuration: configuration
        ) { [writer = journal.writer, logger = configuration.logger] plugin in
            do {
                try writer.pluginLoaded(plugin)
            } catch {
                // The plugin is loaded whatever the journal says: a later goto takes it as unrecorded.
                logger.error("journal: the version of plugin \(plugin.name) was not recorded: \(error)")
            }
        }
    }
}
