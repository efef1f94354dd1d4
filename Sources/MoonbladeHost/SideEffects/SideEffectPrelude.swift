import Foundation
import MoonbladeLua

/// The Lua glue that gives each side effect run its `ctx`, run once per VM.
///
/// `ctx.dispatch` and `ctx.deps.<group>.<name>` await Swift work through the shared `await`
/// (``LuaAwaitingCoroutine``): a Swift start function records the work for the running side effect,
/// `await` yields, and the runner resumes the coroutine with the outcome.
struct SideEffectPrelude {
    static let chunkName = "moonblade/side_effects.lua"

    /// The Swift functions the glue calls, with the VM held.
    struct EntryPoints {
        /// `ctx.dispatch(name, payload, options)`: records the dispatch to await (retried while it fails
        /// per `options.retries` and `options.delay`).
        var startDispatch: LuaFunction
        /// `ctx.deps.<group>.<name>(arguments)`, called as `(number, arguments)` with the function's
        /// number in `dependencyNames`: records the call.
        var startCall: LuaFunction
        /// `ctx.state()`: pushes the state.
        var readState: LuaFunction
        /// The exposed dependencies' numbers, by group and name.
        var dependencyNames: LuaValue
    }

    /// The metatable of every run's `ctx`: a fresh table per run, so that what one run stores in its
    /// ctx no other run sees, that reads the shared functions through `__index`.
    private let contextMetatable: LuaReference

    init(on stack: LuaStack, entryPoints: EntryPoints) throws(LuaError) {
        try stack.load(Self.source, chunkName: Self.chunkName)
        try stack.pushAwaitFunction()
        stack.push(function: entryPoints.startDispatch)
        stack.push(function: entryPoints.startCall)
        stack.push(function: entryPoints.readState)
        try stack.push(entryPoints.dependencyNames)
        stack.pushReadOnlyViewFunction()
        try stack.callAsHost(arguments: 6, results: 1)
        contextMetatable = stack.popReference()
    }

    /// Pushes a new `ctx` onto `stack`; made with the C API rather than by calling Lua, since it is
    /// made for every run.
    func pushContext(onto stack: LuaStack) {
        stack.pushTable()
        contextMetatable.push(onto: stack)
        stack.setMetatable(ofTableAt: -2)
    }

    /// The fields every `ctx` reads through to (`state`, `dispatch`, `deps`), sorted: what editor types
    /// are checked against.
    func contextFieldNames(on stack: LuaStack) -> [String] {
        contextMetatable.push(onto: stack)
        defer { stack.pop() }
        guard stack.rawGet(table: -1, field: "__index") == .table else {
            stack.pop()
            return []
        }
        defer { stack.pop() }
        return stack.fieldNames(ofTableAt: -1)
    }

    /// `Lua/side_effects.lua`.
    private static let source = String(luaResource: PackageResources.side_effects_lua)
}
