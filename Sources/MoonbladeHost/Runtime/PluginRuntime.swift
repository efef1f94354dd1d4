import Moonblade
import MoonbladeLua

/// Runs plugin code for one store: owns the ``PluginVM`` and the catalog of item names.
///
/// The VM is entered by one thread at a time (boundary rule 3): everything that touches it goes
/// through `withVM`, whose body is synchronous, so no thread can hold the VM across an `await`.
/// Lua updaters run right there, on the thread draining the store. Lua side effects run as
/// coroutines: the VM is held only while a coroutine runs, and released while it awaits Swift work.
///
/// Swift code never runs user logic with the VM held: `ctx.dispatch` and `ctx.deps` only *record*
/// what to do, and the awaiting side effect does it after releasing the VM. That is what keeps the
/// store (which may apply a Lua updater on any thread) and the VM from ever waiting on each other.
final class PluginRuntime<S: State & Codable>: @unchecked Sendable {
    // @unchecked Sendable: `pluginVM` is touched only inside `vmLock`, and `catalog` and `connection`
    // only inside `namesLock`. (pthread locks rather than `Mutex`: ThreadSanitizer sees them.)
    private let vmLock = Lock()
    private let pluginVM: PluginVM
    private let namesLock = Lock()
    /// Item names to kinds, readable without the VM (dispatching looks names up on any thread).
    private var catalog: [String: PluginItemKind] = [:]
    /// How Lua reaches the store: set when the store builds its dependency container, before any item runs.
    private var connection: (dispatch: AnyDispatch, getState: GetState)?
    /// How long a side effect may take in all, awaits included; nil for no limit.
    let sideEffectTimeLimit: Duration?

    init(
        configuration: LuaVM.Configuration, sideEffectTimeLimit: Duration?, dependencies: PluginDependencies
    ) throws(PluginError) {
        self.sideEffectTimeLimit = sideEffectTimeLimit
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

    /// Connects Lua's `ctx.dispatch` and `ctx.state()` to the store.
    func connect(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {
        namesLock.withLock { connection = (dispatch, getState) }
    }

    /// How Lua reaches the store, once it is connected.
    var store: (dispatch: AnyDispatch, getState: GetState)? {
        namesLock.withLock { connection }
    }

    /// Loads a plugin folder and makes its items dispatchable by name.
    func loadPlugin(from directory: String) throws(PluginError) -> PluginInfo {
        let info = try withVM { vm throws(PluginError) in try vm.loadPlugin(from: directory) }
        namesLock.withLock {
            for item in info.updaters { catalog[item] = .luaUpdater }
            for item in info.sideEffects { catalog[item] = .luaSideEffect }
        }
        return info
    }

    /// Makes a Swift dispatchable available to Lua's `ctx.dispatch(name, payload)`.
    func register<Item: Dispatchable & Decodable>(_ type: Item.Type, as name: String) {
        namesLock.withLock {
            catalog[name] = .swift { stack, index, decoder in try decoder.decode(Item.self, from: stack, at: index) }
        }
    }

    func kind(of item: String) -> PluginItemKind? {
        namesLock.withLock { catalog[item] }
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
            let stack = vm.vm.stack
            let base = stack.top
            defer { stack.top = base }
            guard let function = vm.functions[item] else { throw Self.unknown(item) }
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

    static func unknown(_ item: String) -> PluginError {
        PluginError(.unknownItem, plugin: pluginName(ofItem: item), item: item, message: "no such item is registered")
    }
}
