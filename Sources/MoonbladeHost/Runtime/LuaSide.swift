import Moonblade
import MoonbladeLua
import MoonbladeResidentState

/// Everything of a plugin host that lives in its Lua VM: reached only inside
/// ``PluginRuntime/withLua(_:)``, so by one thread at a time (boundary rule 3); hence not `Sendable`.
final class LuaSide {
    let vm: LuaVM
    let encoder = LuaEncoder()
    let decoder = LuaDecoder()
    /// Pushes the outcome of what a side effect awaited: one closure for every run.
    let pushAwaited: (PluginValue, LuaStack) throws -> Void
    /// The coroutines of side effect runs that returned, for the next runs.
    let idleSideEffects = SideEffectCoroutinePool()
    /// The running plugins' functions and rules.
    let code = PluginCode()
    /// The store's state as Lua tables, kept between dispatches (see `Updaters/`).
    let resident: LuaResidentState
    // Touched only with the VM held, by one thread at a time.
    /// How Lua reaches the store: set when the store sets up its interceptors, before any item runs.
    var store: InterceptorContext?
    /// The store's count of its state values, set with `store`: what the resident state's version is
    /// checked against.
    var stateVersions: StateVersionCounter?
    /// The version the last Lua updater started from, kept for the observer rules that follow it.
    var previousVersion: LuaStateVersion?
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    // Set at the end of `init` (their glue needs the VM), never nil after it.
    /// The Lua glue that passes items through the plugins' interceptors.
    private(set) var interceptors: LuaInterceptorChain!
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    /// The Lua glue that gives side effects their `ctx`.
    private(set) var sideEffects: SideEffectPrelude!

    init(configuration: LuaVM.Configuration) throws(LuaError) {
        vm = try LuaVM(configuration: configuration)
        pushAwaited = { [encoder] value, stack in try value.push(onto: stack, encoder: encoder) }
        resident = try LuaResidentState(vm: vm)
    }

    /// The main thread's stack.
    var stack: LuaStack { vm.stack }

    /// Runs the host's Lua glue; done once, before any plugin loads.
    func installPreludes(
        sideEffects entryPoints: SideEffectPrelude.EntryPoints, handOn: @escaping LuaFunction
    ) throws(LuaError) {
        sideEffects = try SideEffectPrelude(on: stack, entryPoints: entryPoints)
        interceptors = try LuaInterceptorChain(on: stack, handOn: handOn)
    }
}
