import Foundation
import Moonblade
import MoonbladeLua

/// The Lua side of a plugin host: the VM and what lives in it. Reached only through
/// ``PluginRuntime``'s lock, so one thread at a time (boundary rule 3); hence not `Sendable`.
final class PluginVM {
    let vm: LuaVM
    let encoder = LuaEncoder()
    let decoder = LuaDecoder()
    /// The running version of each plugin, by name.
    var installed: [String: CompiledPlugin] = [:]
    /// Reloaded versions compiled and checked, by reload ticket, waiting for the store to swap them in.
    var staged: [Int: CompiledPlugin] = [:]
    /// What each swap did, by reload ticket, until its reload reports it.
    var reloadOutcomes: [Int: ReloadOutcome] = [:]
    var lastReloadTicket = 0
    /// Plugin names in the order they were first loaded: the order of their interceptors and rules.
    var loadOrder: [String] = []
    /// Every Lua updater and side effect of the running versions, by item name (`todo.add`).
    var functions = ItemFunctions()
    /// Side effects in flight, by the identity of the coroutine thread each runs on.
    var runs: [Int: SideEffectRun] = [:]
    /// The prelude's factory of per-run `ctx` tables.
    private(set) var makeContext: LuaReference!
    /// Every plugin's interceptors in load order, as the Lua list ``interceptorChain`` walks.
    var interceptors: LuaReference!
    var hasInterceptors = false
    /// The prelude's function that passes an item through a list of interceptors.
    private(set) var interceptorChain: LuaReference!
    /// Items being passed through the interceptors, innermost last.
    var interceptions: [Interception] = []
    /// Every plugin's observer rules, in load order.
    var observers: [ObserverRule] = []
    /// The stack that Lua calls made by the host use: the main thread's, or while an interceptor hands
    /// an item on, the stack of the thread it runs on (which may be a coroutine it created).
    var activeStack: LuaStack

    init(configuration: LuaVM.Configuration) throws(LuaError) {
        vm = try LuaVM(configuration: configuration)
        activeStack = vm.stack
    }

    /// Runs the prelude with the host's Swift entry points; done once, before any plugin loads.
    func installPrelude(
        startDispatch: @escaping LuaFunction, startCall: @escaping LuaFunction, readState: @escaping LuaFunction,
        finishInterception: @escaping LuaFunction, dependencyNames: LuaValue
    ) throws(LuaError) {
        let stack = vm.stack
        try stack.load(Prelude.source, chunkName: Prelude.chunkName)
        stack.push(function: startDispatch)
        stack.push(function: startCall)
        stack.push(function: readState)
        stack.push(function: finishInterception)
        try stack.push(dependencyNames)
        stack.pushReadOnlyViewFunction()
        try stack.call(arguments: 6, results: 2)
        interceptorChain = stack.popReference()
        makeContext = stack.popReference()
    }

    /// The name of the loaded plugin whose `plugin.lua` has the chunk name `source`.
    func plugin(atSource source: String?) -> String? {
        installed.values.first { "\(URL(fileURLWithPath: $0.info.directory).lastPathComponent)/plugin.lua" == source }?
            .info.name
    }
}

/// One Lua side effect in flight: its coroutine and the Swift work it is waiting for.
final class SideEffectRun {
    let item: String
    let coroutine: LuaCoroutine
    /// How many reactions down a chain the side effect was dispatched.
    let cascadeDepth: Int
    /// Set by a Swift start function just before the coroutine yields; taken by the host.
    var pending: PendingWork?

    init(item: String, coroutine: LuaCoroutine, cascadeDepth: Int) {
        self.item = item
        self.coroutine = coroutine
        self.cascadeDepth = cascadeDepth
    }
}

/// Swift work a side effect awaits, run outside the VM.
typealias PendingWork = @Sendable () async throws -> PluginValue

extension PluginVM {
    /// A plugin error for `item`, placed where the plugin author should look: the Lua line when one
    /// was running, else where the item is defined (memory errors have no line, and a plugin's
    /// `return ctx.deps.x()` tail call leaves no frame of its own); never the host's glue.
    func pluginError(_ error: LuaError, item: String, plugin: String? = nil) -> PluginError {
        var failure = PluginError(error, plugin: plugin ?? pluginName(ofItem: item), item: item)
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
        function.push(onto: activeStack)
        defer { activeStack.pop() }
        return activeStack.definitionLocation(ofFunctionAt: -1)
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
