import Logging
import Moonblade
import MoonbladeLua

/// Runs plugin code for one store: owns the ``PluginVM`` and the catalog of item names.
///
/// The VM is entered by one thread at a time (boundary rule 3): everything that touches it goes
/// through `withVM`, whose body is synchronous, so no thread can hold the VM across an `await`.
/// Lua updaters, interceptors and observer rules run right there, on the thread draining the store.
/// Lua side effects run as coroutines: the VM is held only while a coroutine runs, and released while
/// it awaits Swift work.
///
/// Swift code never runs user logic with the VM held, with one exception: a Lua interceptor's `next`
/// hands the item on to the store, which may apply a Lua updater (hence the lock is recursive) and
/// call listeners. Everything else (`ctx.dispatch`, `ctx.deps`) only *records* what to do, and the
/// awaiting side effect does it after releasing the VM. That is what keeps the store (which may apply
/// a Lua updater on any thread) and the VM from ever waiting on each other.
final class PluginRuntime<S: State & Codable>: @unchecked Sendable {
    // @unchecked Sendable: `pluginVM` is touched only inside `vmLock`, and the variables below
    // `namesLock` only inside it. (pthread locks rather than `Mutex`: ThreadSanitizer sees them.)
    private let vmLock = Lock(recursive: true)
    private let pluginVM: PluginVM
    private let namesLock = Lock()
    /// Item names to kinds, readable without the VM (dispatching looks names up on any thread).
    private var catalog: [String: PluginItemKind] = [:]
    /// The names of registered Swift dispatchables, by type.
    private var swiftNames: [ObjectIdentifier: String] = [:]
    /// Which kinds of rules the plugins have: the store skips the VM when there are none.
    private var rules = RuleKinds()
    /// What ``loadedPlugins`` answers without the VM.
    private var plugins: [PluginInfo] = []
    /// How Lua reaches the store: set when the store sets up its interceptors, before any item runs.
    private var storeContext: InterceptorContext?

    /// How long a side effect may take in all, awaits included; nil for no limit.
    let sideEffectTimeLimit: Duration?
    /// How many reactions (observer rules, interceptors re-dispatching, side effects dispatching) may
    /// follow each other before the chain is stopped.
    let maxCascadeDepth: Int
    /// Where problems that reach no dispatcher (a raising observer predicate) are reported.
    let logger: Logger
    /// The failures of rule reactions still to be logged, which settling waits for.
    let pendingReports = PendingReports()

    init(
        configuration: LuaVM.Configuration, sideEffectTimeLimit: Duration?, dependencies: PluginDependencies,
        maxCascadeDepth: Int, logger: Logger
    ) throws(PluginError) {
        self.sideEffectTimeLimit = sideEffectTimeLimit
        self.maxCascadeDepth = maxCascadeDepth
        self.logger = logger
        do {
            pluginVM = try PluginVM(configuration: configuration)
        } catch {
            throw PluginError(error, plugin: nil, item: nil)
        }
        do {
            try withVM { vm throws(LuaError) in
                try vm.installPrelude(
                    startDispatch: { [unowned self, unowned vm] stack in try self.startDispatch(stack, vm) },
                    startCall: { [unowned vm] stack in try Self.startCall(stack, vm, dependencies) },
                    readState: { [unowned self, unowned vm] stack in try self.readState(stack, vm) },
                    finishInterception: { [unowned self, unowned vm] stack in try self.finishInterception(stack, vm) },
                    dependencyNames: dependencies.names)
            }
        } catch {
            throw PluginError(error, plugin: nil, item: nil)
        }
    }

    /// Runs `body` with the VM, on this thread alone.
    func withVM<Result, Failure: Error>(_ body: (PluginVM) throws(Failure) -> Result) throws(Failure) -> Result {
        try vmLock.withLock { () throws(Failure) in try body(pluginVM) }
    }

    /// Connects Lua's `ctx.dispatch`, `ctx.state()` and rules to the store.
    func attach(to context: InterceptorContext) {
        namesLock.withLock { storeContext = context }
    }

    /// How Lua reaches the store, once it is attached.
    var store: InterceptorContext? {
        namesLock.withLock { storeContext }
    }

    /// Loads a plugin folder and makes its items dispatchable by name.
    @discardableResult
    func loadPlugin(from directory: String) throws(PluginError) -> PluginInfo {
        try withVM { vm throws(PluginError) in
            let plugin = try vm.compilePlugin(from: directory, replacing: nil)
            install(plugin, vm)
            return plugin.info
        }
    }

    /// Installs `plugin` in the VM and its item names in the catalog, in place of any earlier version.
    func install(_ plugin: CompiledPlugin, _ vm: PluginVM) {
        let earlier = vm.installed[plugin.info.name]?.info
        vm.install(plugin)
        let kinds = RuleKinds(interceptors: vm.hasInterceptors, observers: vm.observers)
        let infos = vm.loadOrder.compactMap { vm.installed[$0]?.info }
        namesLock.withLock {
            for item in (earlier?.updaters ?? []) + (earlier?.sideEffects ?? []) { catalog[item] = nil }
            for item in plugin.info.updaters { catalog[item] = .luaUpdater }
            for item in plugin.info.sideEffects { catalog[item] = .luaSideEffect }
            rules = kinds
            plugins = infos
        }
    }

    /// The running version of every loaded plugin, in load order.
    var loadedPlugins: [PluginInfo] {
        namesLock.withLock { plugins }
    }

    /// Makes a Swift dispatchable available to Lua's `ctx.dispatch(name, payload)` and rules.
    func register<Item: Dispatchable & Decodable>(_ type: Item.Type, as name: String) {
        namesLock.withLock {
            catalog[name] = .swift(isUpdater: Item.self is any AnyStateUpdater.Type) { stack, index, decoder in
                try decoder.decode(Item.self, from: stack, at: index)
            }
            swiftNames[ObjectIdentifier(type)] = name
        }
    }

    func kind(of item: String) -> PluginItemKind? {
        namesLock.withLock { catalog[item] }
    }

    /// The name Lua knows `dispatchable` by: its Lua item, or the name its Swift type is registered under.
    func name(of dispatchable: any Dispatchable) -> String? {
        if let item = dispatchable as? any LuaItem { return item.item }
        return namesLock.withLock { swiftNames[ObjectIdentifier(type(of: dispatchable))] }
    }

    var ruleKinds: RuleKinds {
        namesLock.withLock { rules }
    }
}

/// Which kinds of Lua rules are loaded, to skip the VM for items no rule can see.
struct RuleKinds {
    var interceptors = false
    var observers = false
    /// The names `on_dispatch` rules watch.
    var observedNames: Set<String> = []
    var watchesStateChanges = false

    init(interceptors: Bool = false, observers: [ObserverRule] = []) {
        self.interceptors = interceptors
        self.observers = !observers.isEmpty
        for rule in observers {
            switch rule.trigger {
            case .dispatch(let name): observedNames.insert(name)
            case .stateChange: watchesStateChanges = true
            case .start, .notification: break
            }
        }
    }

    /// Whether an `on_dispatch` or `on_state_change` rule may fire after the item.
    func mayObserve(_ name: String?, isUpdater: Bool) -> Bool {
        (isUpdater && watchesStateChanges) || name.map(observedNames.contains) == true
    }
}

// MARK: - Updaters

extension PluginRuntime {
    /// Runs the Lua updater `item` on a copy of `state` and returns what it leaves, decoded.
    ///
    /// The updater may change the table in place or return a new one. If it raises, or what it leaves
    /// is not an `S`, this throws and the store keeps its state.
    func applyUpdater(_ item: String, to state: S, payload: PluginValue) throws(PluginError) -> S {
        try withVM { vm throws(PluginError) in
            let stack = vm.activeStack
            let base = stack.top
            defer { stack.top = base }
            let function = try vm.function(of: item, isUpdater: true)
            do {
                try vm.encoder.push(state, onto: stack)
            } catch {
                throw vm.valueError(error, item: item, root: "state")
            }
            do {
                stack.pushCopy(of: base + 1)
                try payload.push(onto: stack, encoder: vm.encoder)
                try stack.call(arguments: 2, results: 1, function: function)
            } catch let error as LuaError {
                throw vm.pluginError(error, item: item)
            } catch {
                throw vm.valueError(error, item: item, root: "payload")
            }
            let resultIndex = stack.type(at: -1) == .nil ? base + 1 : stack.top
            // A state that is a table stays one: a returned number or string is a slip, not a new state.
            if stack.type(at: base + 1) == .table, stack.type(at: resultIndex) != .table {
                throw PluginError(
                    .invalidState, plugin: pluginName(ofItem: item), item: item,
                    message: "returned a \(stack.type(at: resultIndex)); an updater changes the state table in place or returns a new table",
                    location: vm.definition(of: item))
            }
            do {
                return try vm.decoder.decode(S.self, from: stack, at: resultIndex)
            } catch {
                var failure = vm.valueError(error, item: item, root: "state")
                failure.kind = .invalidState
                failure.message = "left a state that is not a \(S.self): \(failure.message)"
                throw failure
            }
        }
    }
}
