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
    /// Side effects in flight, by the identity of the coroutine thread each runs on.
    var runs: [Int: SideEffectRun] = [:]
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
        stack.pushReadOnlyViewFunction()
        try stack.call(arguments: 5, results: 1)
        makeContext = stack.popReference()
    }
}

/// One Lua side effect in flight: its coroutine and the Swift work it is waiting for.
final class SideEffectRun {
    let item: String
    let coroutine: LuaCoroutine
    /// Set by a Swift start function just before the coroutine yields; taken by the host.
    var pending: PendingWork?

    init(item: String, coroutine: LuaCoroutine) {
        self.item = item
        self.coroutine = coroutine
    }
}

/// Swift work a side effect awaits, run outside the VM.
typealias PendingWork = @Sendable () async throws -> PluginValue

extension PluginVM {
    /// A plugin error for `item`, placed where the plugin author should look: the Lua line when one
    /// was running, else where the item is defined (memory errors have no line, and a plugin's
    /// `return ctx.deps.x()` tail call leaves no frame of its own); never the host's glue.
    func pluginError(_ error: LuaError, item: String) -> PluginError {
        var failure = PluginError(error, plugin: pluginName(ofItem: item), item: item)
        if failure.location == nil || failure.location?.source == Prelude.chunkName {
            failure.location = definition(of: item)
        }
        return failure
    }

    /// A value that could not cross between Lua and Swift for `item`, with the decoding path if any.
    func valueError(_ error: any Error, item: String, root: String) -> PluginError {
        let message = switch error {
        case let error as DecodingError: LuaDecoder.describe(error, root: root)
        case let error as EncodingError: LuaEncoder.describe(error, root: root)
        default: "\(root): \(error)"
        }
        return PluginError(
            .invalidValue, plugin: pluginName(ofItem: item), item: item, message: message,
            location: definition(of: item), underlying: error)
    }

    /// Where the Lua function of `item` is defined.
    func definition(of item: String) -> LuaLocation? {
        guard let function = functions[item] else { return nil }
        function.push(onto: vm.stack)
        defer { vm.stack.pop() }
        return vm.stack.definitionLocation(ofFunctionAt: -1)
    }
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
