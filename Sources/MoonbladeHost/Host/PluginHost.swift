import Logging
import Metrics
import Moonblade
import MoonbladeLua
import Tracing

/// A store whose business logic lives in Lua plugins, alongside any Swift items.
///
/// ```swift
/// var dependencies = PluginDependencies()
/// dependencies.expose("storage", "read") { (request: ReadRequest) in try await storage.read(request.key) }
/// let host = try PluginHost<AppState>(plugins: ["Plugins/todo"], dependencies: dependencies)
/// try await host.dispatch("todo.add", ["title": "milk"]).value
/// print(host.store.state.todos)
/// ```
///
/// Plugins load in order; one that fails to load is left out, reported in ``loadErrors`` and the log,
/// and the others still load. Items are named `plugin.item`. The host is `Sendable`: dispatch from any
/// thread.
public final class PluginHost<S: State & Codable>: Sendable {
    /// Settings for the Lua side: the limits plugin code runs under (see <doc:SandboxAndLimits>).
    ///
    /// Every limit a plugin exceeds fails the dispatch with a ``PluginError/Kind/limit`` error naming
    /// the item and the plugin line; the state is untouched and the next dispatch runs normally.
    public struct Configuration: Sendable {
        /// The most memory plugin code may make the VM hold, in bytes; nil for no limit.
        /// Default 256 MiB.
        public var memoryLimit: Int?
        /// The most Lua instructions one updater call, or one stretch of a side effect between two
        /// awaits, may run; nil for no limit. Default 100 million (a few tenths of a second of Lua):
        /// far above any sane updater, low enough that a runaway loop frees the store quickly.
        public var instructionBudget: Int?
        /// Instructions between two checks of the budget and the time limits. Default 1000.
        /// nil removes the count hook: tight Lua loops then run about twice as fast (BENCHMARKS.md), but
        /// none of them can stop running Lua code any more (awaits are still timed).
        public var hookInterval: Int?
        /// The longest one updater, interceptor or observer rule call (and one stretch of a side effect
        /// between two awaits, if the side effect has no time limit of its own) may run on the wall
        /// clock, wherever it spends it: Lua code, or a library function looping in C (a pattern
        /// match). nil for no limit. Default 5 s. When it passes, the call fails with a limit error.
        public var callTimeLimit: Duration?
        /// The longest a Lua side effect may take in all, from its start to its return, including the
        /// time it awaits Swift work (`ctx.deps`, `ctx.dispatch`); nil for no limit. Default 30 s.
        /// When it passes, Lua code is stopped, awaited work is cancelled and abandoned.
        public var sideEffectTimeLimit: Duration?
        /// How many reactions may follow each other (an observer rule dispatching, an interceptor
        /// re-dispatching as another kind, a side effect dispatching) before the chain is stopped with
        /// an error naming what reacted. 32 by default.
        public var maxCascadeDepth: Int
        /// Limits of particular plugins, by plugin name, in place of the host-wide ones above (see
        /// ``PluginLimits``). Empty by default: every plugin runs under the host-wide limits.
        public var pluginLimits: [String: PluginLimits] = [:]
        /// Whether the plugins' `on_start` rules fire when the store starts. True by default; a host
        /// that starts from a recorded state (a journal's recovery, a replay) puts it back without
        /// them, so starting only to look changes nothing.
        public var firesStartRules = true
        /// Where load problems, failing observer rules and reloads are logged.
        public var logger: Logger
        /// Where the spans of Lua dispatches and reloads go (see ``SpanAttributeName``); nil for the
        /// tracer bootstrapped with `InstrumentationSystem` when the host starts. With none, no span
        /// is made at all.
        public var tracer: (any Tracer)?
        /// Where the host's metrics go (see ``MetricName``); nil for the factory bootstrapped with
        /// `MetricsSystem` when the host starts. With none, nothing is measured at all.
        public var metricsFactory: (any MetricsFactory)?

        /// Settings with the defaults documented on each property.
        public init(
            memoryLimit: Int? = 256 << 20, instructionBudget: Int? = 100_000_000, hookInterval: Int? = 1000,
            callTimeLimit: Duration? = .seconds(5), sideEffectTimeLimit: Duration? = .seconds(30),
            maxCascadeDepth: Int = 32,
            logger: Logger = Logger(label: "moonblade.host"), tracer: (any Tracer)? = nil,
            metricsFactory: (any MetricsFactory)? = nil
        ) {
            self.memoryLimit = memoryLimit
            self.instructionBudget = instructionBudget
            self.hookInterval = hookInterval
            self.callTimeLimit = callTimeLimit
            self.sideEffectTimeLimit = sideEffectTimeLimit
            self.maxCascadeDepth = maxCascadeDepth
            self.logger = logger
            self.tracer = tracer
            self.metricsFactory = metricsFactory
        }

        /// The VM's share of these settings.
        var vm: LuaVM.Configuration {
            LuaVM.Configuration(
                memoryLimit: memoryLimit, instructionBudget: instructionBudget, callTimeLimit: callTimeLimit,
                hookInterval: hookInterval)
        }
    }

    /// The store the plugins run in.
    public let store: Store<S, PluginHostDependencies>
    /// The running version of each plugin that loaded, in load order.
    public var plugins: [PluginInfo] { runtime.loadedPlugins }
    /// Why each plugin that did not load at start was refused.
    public let loadErrors: [PluginError]
    /// The folders of the plugins that did not load at start, in order.
    let refusedDirectories: [String]
    let runtime: PluginRuntime<S>
    /// `LuaItemUpdater<S>.self`, kept with its metadata (see ``LuaNamedUpdater``).
    private let namedUpdater: any LuaNamedUpdater.Type = LuaItemUpdater<S>.self
    /// `LuaItemSideEffect<S>.self`, kept likewise (see ``LuaNamedSideEffect``).
    private let namedSideEffect: any LuaNamedSideEffect.Type = LuaItemSideEffect<S>.self
    let logger: Logger
    let reloadEventHub = ReloadEventHub()
    /// The watchers `watchPlugins` made that are still kept, for plugins loaded later to join.
    let watchers = RunningWatchers()
    /// Told of each plugin ``load(plugin:)`` loads (see ``init(loaded:initialState:interceptors:innerInterceptors:sideEffectInterceptors:configuration:onLoad:)``).
    let onLoad: (@Sendable (PluginInfo) -> Void)?

    /// Loads the plugins in `directories` (each holds a `plugin.lua`) and starts a store on them.
    ///
    /// Every item passes the Swift `interceptors` first (in array order), then the plugins' Lua
    /// interceptors (in load order, each plugin's in its own order); the plugins' observer rules see
    /// the item that comes out at the end, once the store has handled it.
    ///
    /// - Parameters:
    ///   - directories: the plugin folders, in load order.
    ///   - initialState: the state the store starts from.
    ///   - interceptors: Swift interceptors, outermost first.
    ///   - sideEffectInterceptors: Swift interceptors that side effects pass in their own task, after
    ///     the synchronous chain, and that may await dispatches (see `SideEffectInterceptor`).
    ///   - dependencies: the Swift functions side effects reach as `ctx.deps`.
    ///   - configuration: limits, logger, tracer and metrics (see ``Configuration``).
    /// - Throws: only when the Lua VM cannot be created; plugin problems go to ``loadErrors``.
    public convenience init(
        plugins directories: [String],
        initialState: S = S(),
        dependencies: PluginDependencies = PluginDependencies(),
        interceptors: [StoreInterceptor] = [],
        sideEffectInterceptors: [SideEffectInterceptor] = [],
        configuration: Configuration = Configuration()
    ) throws(PluginError) {
        try self.init(
            plugins: directories, initialState: initialState, dependencies: dependencies, interceptors: interceptors,
            innerInterceptors: [], sideEffectInterceptors: sideEffectInterceptors, configuration: configuration)
    }

    /// Loads the plugins like the public initializer, and also puts `innerInterceptors` innermost:
    /// after the plugins' Lua interceptors and rules, where items reach the store as they will run
    /// (the test harness tracks side effects there without hiding them from the rules).
    package convenience init(
        plugins directories: [String],
        initialState: S,
        dependencies: PluginDependencies,
        interceptors: [StoreInterceptor],
        innerInterceptors: [StoreInterceptor],
        sideEffectInterceptors: [SideEffectInterceptor] = [],
        configuration: Configuration
    ) throws(PluginError) {
        self.init(
            loaded: try LoadedPlugins(plugins: directories, dependencies: dependencies, configuration: configuration),
            initialState: initialState, interceptors: interceptors, innerInterceptors: innerInterceptors,
            sideEffectInterceptors: sideEffectInterceptors, configuration: configuration)
    }

    /// Starts a store on plugins already loaded, from `initialState`: the second half of loading a
    /// host, for a caller that needs the plugins' code to settle its initial state (the journal runs
    /// their migrations on a recovered state).
    ///
    /// - Parameter onLoad: called with each plugin ``load(plugin:)`` loads later (the journal records
    ///   its version).
    package init(
        loaded: LoadedPlugins<S>,
        initialState: S,
        interceptors: [StoreInterceptor],
        innerInterceptors: [StoreInterceptor],
        sideEffectInterceptors: [SideEffectInterceptor] = [],
        configuration: Configuration,
        onLoad: (@Sendable (PluginInfo) -> Void)? = nil
    ) {
        let runtime = loaded.runtime
        self.runtime = runtime
        logger = configuration.logger
        loadErrors = loaded.errors
        refusedDirectories = loaded.refusedDirectories
        self.onLoad = onLoad
        store = Store(
            interceptors: interceptors + [
                Self.bindingInterceptor(runtime), runtime.ruleInterceptor(firingStartRules: configuration.firesStartRules),
            ] + innerInterceptors,
            sideEffectInterceptors: sideEffectInterceptors,
            stateInitializer: { initialState },
            dependenciesInitializer: PluginHostDependencies.init(dispatch:getState:))
    }

    /// The store's current state.
    public var state: S { store.state }

    /// The bytes the plugins' Lua VM holds now (the figure the memory limit is checked against).
    public var memoryInUse: Int { runtime.withLua { $0.vm.memoryInUse } }

    /// Makes a Swift dispatchable reachable from Lua as `ctx.dispatch(name, payload)`, the payload
    /// decoded into `Item`.
    ///
    /// The plugin part of `name` need not be a loaded plugin (`app.set_counter` in a Swift-only
    /// namespace). A name stands for one item, Lua or Swift, and a Swift type has one name: registering
    /// `Item` again as the same name does nothing, and any other overlap is refused rather than one
    /// item silently shadowing another. Plugins keep to the same rule: a plugin loaded or reloaded later
    /// that defines an item under a registered name is refused (a reload keeps the running version).
    ///
    /// - Throws: ``PluginError/Kind/invalidName`` when `name` is not `plugin.item` as plugins name their
    ///   items (one dot; parts without spaces, quotes, brackets, braces, commas or colons; the plugin
    ///   part not starting with a digit or `-`): no one could dispatch it by that name.
    ///   ``PluginError/Kind/duplicate`` when `name` is taken: by a loaded plugin's updater or side effect
    ///   (the error names the plugin and the item's `file:line`) or by another Swift type; or when `Item`
    ///   is already registered under another name.
    public func register<Item: Dispatchable & Decodable>(_ type: Item.Type, as name: String) throws(PluginError) {
        if let problem = ItemName.problem(with: name[...]) {
            throw PluginError(.invalidName, message: problem)
        }
        try runtime.register(type, as: name)
    }

    /// Posts `notification` on the host's notification channel: every `on_notification` rule naming it
    /// fires, its payload functions called with `payload`.
    public func post(_ notification: String, payload: (any Encodable & Sendable)? = nil) {
        runtime.post(notification, payload: PluginValue(payload: payload))
    }

    /// Dispatches the item `name` with `payload`: a Lua updater or side effect (the payload's fields
    /// become a Lua table), or a Swift item registered with ``register(_:as:)`` (the payload decoded
    /// into its type, as from Lua's `ctx.dispatch`).
    ///
    /// With `retries`, a failing dispatch is made again up to that many times, `delay` apart; see
    /// the store's `dispatch(_:retries:delay:)`.
    ///
    /// - Throws: ``PluginError/Kind/unknownItem`` at once when no item has that name, and
    ///   ``PluginError/Kind/invalidValue`` when a Swift item's payload does not decode into its type;
    ///   the item's own errors arrive through the handle's `value`.
    @discardableResult
    public func dispatch(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil, retries: Int = 0, delay: Duration = .zero
    ) throws(PluginError) -> DispatchHandle<Void> {
        let value = PluginValue(payload: payload)
        switch runtime.kind(of: name) {
        case .luaUpdater(let resolved):
            // The store's own `dispatch` when nothing is retried: `Dispatcher`'s goes through a witness
            // table and looks up the store's generic type metadata first.
            guard retries == 0 else {
                var updater = LuaItemUpdater(runtime: runtime, resolved: resolved, payload: value)
                if let caller = runtime.instruments.callerContext { updater.traceParent = caller }
                return store.dispatch(updater, retries: retries, delay: delay)
            }
            return dispatch(namedUpdater, resolved, value)
        case .luaSideEffect(let resolved):
            return dispatch(namedSideEffect, name, resolved, value, .nothing, retries: retries, delay: delay).typed()
        case .swift(_, let make):
            let item = try runtime.makeSwiftItem(name, make, payload: value)
            return store.anyDispatch(item, retries: retries, delay: delay).typed()
        case nil: throw unknownItemError(name, among: runtime.catalog.itemNames)
        }
    }

    /// Dispatches the side effect `name` and decodes what it returns as `Result`; with `retries`, again
    /// up to that many times, `delay` apart, while it fails. A Swift side effect registered with
    /// ``register(_:as:)`` returns its own value, which `Result` must be.
    public func dispatch<Result: Decodable & Sendable>(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil, returning: Result.Type,
        retries: Int = 0, delay: Duration = .zero
    ) throws(PluginError) -> DispatchHandle<Result> {
        switch runtime.kind(of: name) {
        case .luaSideEffect(let resolved):
            let payload = PluginValue(payload: payload)
            return dispatch(namedSideEffect, name, resolved, payload, .decoding(Result.self), retries: retries, delay: delay).typed()
        case .luaUpdater, .swift(isUpdater: true, _):
            throw PluginError(.wrongKind, plugin: pluginName(ofItem: name), item: name, message: "is an updater; it returns nothing")
        case .swift(isUpdater: false, let make):
            let item = try runtime.makeSwiftItem(name, make, payload: PluginValue(payload: payload))
            return store.anyDispatch(item, retries: retries, delay: delay).typed()
        case nil:
            throw unknownItemError(name, among: runtime.catalog.itemNames)
        }
    }

    /// Dispatches the side effect `resolved`, made as an `E` (the type `namedSideEffect` holds) reading
    /// its result with `reader`; the store's own `dispatch` when nothing is retried, as for an updater.
    private func dispatch<E: LuaNamedSideEffect>(
        _: E.Type, _ name: String, _ resolved: ResolvedLuaItem, _ payload: PluginValue, _ reader: SideEffectResultReader,
        retries: Int, delay: Duration
    ) -> DispatchHandle<any Sendable> {
        var sideEffect = E(runtimeObject: runtime, item: name, resolved: resolved, payload: payload, readResult: reader)
        if let caller = runtime.instruments.callerContext { sideEffect.traceParent = caller }
        guard retries == 0 else { return store.dispatch(sideEffect, retries: retries, delay: delay) }
        return store.dispatch(sideEffect)
    }

    /// Dispatches the updater `resolved`, made as a `U`: the type `namedUpdater` holds.
    private func dispatch<U: LuaNamedUpdater>(_: U.Type, _ resolved: ResolvedLuaItem, _ payload: PluginValue) -> DispatchHandle<Void> {
        var updater = U(runtimeObject: runtime, resolved: resolved, payload: payload)
        if let caller = runtime.instruments.callerContext { updater.traceParent = caller }
        return store.dispatch(updater)
    }

    /// The innermost interceptor: turns typed wrappers of Lua items into the items that run them,
    /// after every user interceptor has seen the typed value.
    private static func bindingInterceptor(_ runtime: PluginRuntime<S>) -> StoreInterceptor {
        // Whether an item is a typed wrapper is remembered per type; a Lua updater dispatched by name,
        // the hottest item, is told by its type's identity first (taken once here), without the memo's lock.
        // Only typed wrappers pay for telling their kind.
        let updater = ObjectIdentifier(LuaItemUpdater<S>.self)
        let wrappers = ItemTypeMemo { $0 is any LuaTypedWrapper.Type }
        return { _ in
            { next in
                { item in
                    let itemType = type(of: item)
                    guard ObjectIdentifier(itemType) != updater, wrappers.answer(for: itemType) else { return try next(item) }
                    switch item {
                    case let updater as any LuaStateUpdater:
                        try next(LuaItemUpdater(runtime: runtime, item: type(of: updater).luaItem, payload: .encodable(updater)))
                    case let effect as any LuaReturningSideEffect:
                        try next(effect.bound(to: runtime))
                    case let effect as any LuaSideEffect:
                        try next(
                            LuaItemSideEffect(runtime: runtime, item: type(of: effect).luaItem, payload: .encodable(effect), readResult: .nothing))
                    default:
                        try next(item)
                    }
                }
            }
        }
    }
}

extension LuaReturningSideEffect {
    fileprivate func bound<S>(to runtime: PluginRuntime<S>) -> any Dispatchable {
        LuaItemSideEffect(runtime: runtime, item: Self.luaItem, payload: .encodable(self), readResult: .decoding(ReturnValue.self))
    }
}

/// Plugins loaded into a VM of their own, before any store runs on them: the first half of loading a
/// ``PluginHost`` (see ``PluginHost/init(loaded:initialState:interceptors:innerInterceptors:sideEffectInterceptors:configuration:onLoad:)``).
package struct LoadedPlugins<S: State & Codable>: Sendable {
    let runtime: PluginRuntime<S>
    /// Why each plugin that did not load was refused.
    let errors: [PluginError]
    /// The folders of the plugins that did not load, in order.
    let refusedDirectories: [String]

    /// Loads the plugins in `directories` in order; one that fails to load is left out, logged and
    /// kept in ``errors``.
    ///
    /// - Throws: only when the Lua VM cannot be created.
    package init(
        plugins directories: [String], dependencies: PluginDependencies, configuration: PluginHost<S>.Configuration
    ) throws(PluginError) {
        runtime = try PluginRuntime<S>(
            configuration: configuration.vm, sideEffectTimeLimit: configuration.sideEffectTimeLimit,
            pluginLimits: configuration.pluginLimits,
            dependencies: dependencies, maxCascadeDepth: configuration.maxCascadeDepth, logger: configuration.logger,
            instruments: HostInstruments(tracer: configuration.tracer, metricsFactory: configuration.metricsFactory))
        var errors: [PluginError] = []
        var refused: [String] = []
        for directory in directories {
            do {
                try runtime.loadPlugin(from: directory)
            } catch {
                configuration.logger.error("plugin refused: \(error)", metadata: ["load": "refused"])
                errors.append(error)
                refused.append(directory)
            }
        }
        self.errors = errors
        refusedDirectories = refused
    }

    /// Their migrations, for a state recorded under other versions.
    package var migrator: PluginMigrator<S> { PluginMigrator(runtime: runtime) }
}
