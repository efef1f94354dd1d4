import Foundation
import Moonblade
import MoonbladeLua

/// The Lua side of a plugin host: the VM and what lives in it. Reached only through
/// ``PluginRuntime``'s lock, so one thread at a time (boundary rule 3); hence not `Sendable`.
final class PluginVM {
    let vm: LuaVM
    let encoder = LuaEncoder()
    let decoder = LuaDecoder()
    /// Loaded plugins by name.
    var plugins: [String: PluginInfo] = [:]
    /// Every Lua updater and side effect, by item name (`todo.add`).
    var functions: [String: LuaReference] = [:]
    /// Side effects in flight, by run number, and the coroutine thread each runs on.
    var runs: [Int: SideEffectRun] = [:]
    var runByThread: [OpaquePointer: Int] = [:]
    var nextRunNumber = 0
    /// The prelude's factory of per-run `ctx` tables.
    private(set) var makeContext: LuaReference!

    init(configuration: LuaVM.Configuration) throws(LuaError) {
        vm = try LuaVM(configuration: configuration)
    }

    /// Runs the prelude with the host's Swift entry points; done once, before any plugin loads.
    func installPrelude(
        startDispatch: @escaping LuaFunction, startCall: @escaping LuaFunction, readState: @escaping LuaFunction,
        dependencyNames: LuaValue
    ) throws(LuaError) {
        let stack = vm.stack
        try stack.load(Prelude.source, chunkName: Prelude.chunkName)
        stack.push(function: startDispatch)
        stack.push(function: startCall)
        stack.push(function: readState)
        try stack.push(dependencyNames)
        try stack.call(arguments: 4, results: 1)
        makeContext = stack.popReference()
    }
}

/// One Lua side effect in flight: its coroutine and the Swift work it is waiting for.
final class SideEffectRun {
    let item: String
    let coroutine: LuaCoroutine
    /// Where the side effect's function is defined: the place to blame when no plugin line is on the
    /// stack (a plugin's `return ctx.deps.x()` is a tail call, which leaves no frame of its own).
    let definition: LuaLocation?
    /// Set by a Swift start function just before the coroutine yields; taken by the host.
    var pending: PendingAwait?

    init(item: String, coroutine: LuaCoroutine, definition: LuaLocation?) {
        self.item = item
        self.coroutine = coroutine
        self.definition = definition
    }

    /// The innermost plugin line on the coroutine's stack, past the prelude's glue.
    func pluginLocation(_ stack: LuaStack) -> LuaLocation? {
        stack.callerLocation(skipping: Prelude.chunkName) ?? definition
    }
}

/// Swift work a side effect awaits, and the plugin line that awaited it (for error messages).
struct PendingAwait: Sendable {
    let location: LuaLocation?
    let work: PluginDependencies.PendingWork
}

/// What the host knows about a loaded plugin.
public struct PluginInfo: Sendable, Hashable {
    /// The plugin's name, the prefix of its items.
    public var name: String
    /// The plugin's `version` (1 when it does not say).
    public var version: Int
    /// The folder it was loaded from.
    public var directory: String
    /// Its updaters' and side effects' item names (`todo.add`).
    public var updaters: [String]
    public var sideEffects: [String]
}
