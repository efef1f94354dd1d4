import Logging
import Moonblade
import MoonbladeLua

/// Runs plugin code for one store: the VM behind its lock, and the parts that work in it.
///
/// The parts, each in the folder of its concept: the catalog (``PluginCatalog``, published for any
/// thread, and ``PluginCode`` in the VM), the updaters (`Updaters/`), the interceptor chain
/// (``LuaInterceptorChain``), the observer rules (`Observers/`), the side effect runner
/// (`SideEffects/`) and the reload coordinator (``ReloadCoordinator``).
///
/// The VM is entered by one thread at a time (boundary rule 3): everything that touches it goes
/// through ``withLua(_:)``, whose body is synchronous, so no thread can hold the VM across an `await`.
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
    // @unchecked Sendable: `lua` is touched only inside `vmLock`; `published` and `lastKind` only
    // inside `catalogLock`. (pthread locks rather than `Mutex`: ThreadSanitizer sees them.)
    private let vmLock = Lock(recursive: true)
    private let lua: LuaSide
    private let catalogLock = Lock()
    private var published = PluginCatalog() {
        didSet { lastKind = nil }
    }
    /// The last name `kind(of:)` looked up in `published`, and its kind: dispatches by name come in
    /// runs of one item, and comparing a name costs a fraction of hashing it.
    private var lastKind: (name: String, kind: PluginItemKind?)?

    /// Staged reloads, waiting for the store to swap them in.
    let reloads = ReloadCoordinator()
    /// How long a side effect may take in all, awaits included; nil for no limit.
    let sideEffectTimeLimit: Duration?
    /// Limits of particular plugins, in place of the host-wide ones.
    let pluginLimits: [String: PluginLimits]
    /// How many reactions (observer rules, interceptors re-dispatching, side effects dispatching) may
    /// follow each other before the chain is stopped.
    let maxCascadeDepth: Int
    /// Where problems that reach no dispatcher (a raising observer predicate) are reported.
    let logger: Logger
    /// The failures of rule reactions still to be logged, which settling waits for.
    let pendingReports = PendingReports()
    /// Where spans and metrics go (`Observability/`).
    let instruments: HostInstruments
    /// Stops the plugin code running in the VM, from any thread (Ctrl-C at a command line).
    let interrupter: LuaInterrupter

    init(
        configuration: LuaVM.Configuration, sideEffectTimeLimit: Duration?, pluginLimits: [String: PluginLimits] = [:],
        dependencies: PluginDependencies,
        maxCascadeDepth: Int, logger: Logger, instruments: HostInstruments = .none
    ) throws(PluginError) {
        self.sideEffectTimeLimit = sideEffectTimeLimit
        self.pluginLimits = pluginLimits
        self.maxCascadeDepth = maxCascadeDepth
        self.logger = logger
        self.instruments = instruments
        let exposed = dependencies.numbered
        do {
            lua = try LuaSide(configuration: configuration)
        } catch {
            throw PluginError(error, plugin: nil, item: nil)
        }
        interrupter = lua.vm.interrupter
        do {
            try lua.installPreludes(
                sideEffects: SideEffectPrelude.EntryPoints(
                    startDispatch: { [unowned self] stack in try self.startDispatch(stack) },
                    startCall: { stack in try Self.startCall(stack, exposed.entries, instruments) },
                    readState: { [unowned self] stack in try self.readState(stack) },
                    dependencyNames: exposed.names),
                handOn: { [unowned self] stack in try self.handOn(stack) })
        } catch {
            throw PluginError(error, plugin: nil, item: nil)
        }
    }

    /// Runs `body` with the VM, on this thread alone.
    func withLua<Result, Failure: Error>(_ body: (LuaSide) throws(Failure) -> Result) throws(Failure) -> Result {
        // Locked by hand: one closure fewer on every Lua call (`withLock` is not specialised across modules).
        vmLock.lock()
        defer { vmLock.unlock() }
        return try body(lua)
    }

    /// Connects Lua's `ctx.dispatch`, `ctx.state()` and rules to the store.
    func attach(to context: InterceptorContext) {
        withLua {
            $0.store = context
            $0.stateVersions = context.stateVersions
        }
    }

    /// What can be dispatched now; read without the VM.
    var catalog: PluginCatalog {
        catalogLock.withLock { published }
    }

    /// The running version of every loaded plugin, in load order: the catalog's own list, read without
    /// copying the catalog (the journal asks for every Lua item it records).
    var loadedPlugins: [PluginInfo] {
        // Locked by hand, as on the other per-dispatch paths: `withLock` is a generic call from here.
        catalogLock.lock()
        defer { catalogLock.unlock() }
        return published.plugins
    }

    /// What `name` dispatches, read without copying the catalog (every dispatch by name asks).
    func kind(of name: String) -> PluginItemKind? {
        // Locked by hand, as on the other per-dispatch paths: `withLock` is a generic call from here.
        catalogLock.lock()
        defer { catalogLock.unlock() }
        if let lastKind, lastKind.name == name { return lastKind.kind }
        let kind = published.kind(of: name)
        lastKind = (name, kind)
        return kind
    }

    /// The catalog if the loaded plugins have any rule, nil otherwise (every item asks: one read of
    /// the lock, and no copy of the catalog for an item no rule can see).
    var catalogWithRules: PluginCatalog? {
        catalogLock.lock()
        defer { catalogLock.unlock() }
        return published.rules.interceptors || published.rules.observers ? published : nil
    }

    /// Loads a plugin folder and makes its items dispatchable by name.
    @discardableResult
    func loadPlugin(from directory: String) throws(PluginError) -> PluginInfo {
        try withLua { lua throws(PluginError) in
            let plugin = try PluginLoader(stack: lua.stack, code: lua.code).compile(from: directory, replacing: nil)
            try install(plugin, lua)
            return plugin.info
        }
    }

    /// Installs `plugin` in the VM and publishes the catalog that results, in one step; refuses it when
    /// one of its items has the name of a registered Swift item (see
    /// ``PluginCatalog/checkNoSwiftItem(in:definedAt:)``). Every load, reload and rollback goes through
    /// here with the VM held, as `register` does: no name can be taken between the check and the install.
    func install(_ plugin: CompiledPlugin, _ lua: LuaSide) throws(PluginError) {
        try catalog.checkNoSwiftItem(in: plugin.info) { plugin.functions.definition(of: $0, on: lua.stack) }
        catalogLock.withLock {
            published = lua.code.install(plugin, on: lua.stack, into: published)
        }
    }

    /// Makes a Swift dispatchable available to Lua's `ctx.dispatch(name, payload)` and rules, unless
    /// the name is taken (see ``PluginCatalog/registering(_:as:definedAt:)``).
    ///
    /// With the VM held, as every install is: a plugin checked against the registered names cannot
    /// have one registered between its check and its install, and a migration that fails puts back
    /// an earlier version whose names no Swift item could take meanwhile.
    func register<Item: Dispatchable & Decodable>(_ type: Item.Type, as name: String) throws(PluginError) {
        try withLua { lua throws(PluginError) in
            let registered = try catalog.registering(type, as: name) { lua.code.definition(of: $0, on: lua.stack) }
            catalogLock.withLock { published = registered }
        }
    }

    /// The limits the code of `plugin` runs under, in place of the VM's own (none: the host-wide ones).
    func limits(of plugin: String) -> LuaVM.Limits {
        pluginLimits[plugin]?.vm ?? LuaVM.Limits()
    }

    /// How long a side effect of `plugin` may take.
    func sideEffectTimeLimit(of plugin: String) -> Duration? {
        pluginLimits[plugin]?.sideEffectTimeLimit ?? sideEffectTimeLimit
    }
}

/// The `PluginRuntime<S>` an item keeps as an object, so that the item's own types need no state type
/// (their metadata is then not looked up per dispatch). An unchecked cast: unlike
/// `unsafeDowncast(_:to:)`, it is passed no metatype, so it looks none up either.
@inline(__always)
func pluginRuntime<S: State & Codable>(kept object: AnyObject) -> PluginRuntime<S> {
    // 2.3 % of a Lua side effect, 2.0 % of a Lua counter dispatch (Scripts/perf-gate side-effect-echo,
    // dispatch-lua: `as!` looks up the class's metadata, 310 instructions a call).
    Unmanaged<PluginRuntime<S>>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue()
}
