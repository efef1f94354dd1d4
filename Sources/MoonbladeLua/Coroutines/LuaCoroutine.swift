import CLua
import LuaGuest

/// A Lua coroutine driven by the host: a function run on its own Lua thread, which can suspend
/// (`coroutine.yield` in Lua code, boundary rule 2) and be resumed later, possibly from another
/// Swift task.
///
/// Like the VM it belongs to, a coroutine is used by one thread at a time and is not `Sendable`.
public final class LuaCoroutine {
    /// How a resume ended.
    public enum Outcome: Equatable {
        /// The coroutine yielded this many values; they are on top of its ``stack``.
        case yielded(Int32)
        /// The function returned this many values; they are on top of its ``stack``.
        case returned(Int32)
    }

    /// The coroutine's own stack: push the function and its arguments here before the first resume,
    /// the resume arguments before later ones, and read yielded or returned values from here.
    public let stack: LuaStack
    private let thread: LuaReference

    /// Creates a coroutine in the VM `stack` belongs to; its stack starts empty.
    public init(in stack: LuaStack) {
        self.stack = LuaStack(lua_newthread(stack.state))
        thread = stack.popReference()
    }

    /// Runs the coroutine until it yields or returns, with the guest limits armed.
    ///
    /// - Parameters:
    ///   - arguments: how many values on top of ``stack`` to pass (to the function on the first
    ///     resume; as the results of `coroutine.yield` later).
    ///   - host: the stack of the thread doing the resuming, where an error's description is built.
    ///   - deadline: when given, the coroutine is stopped with a ``LuaError/Kind/limit`` error if it
    ///     is still running once the deadline passes.
    /// - Throws: the error that killed the coroutine, with its place and a traceback; the coroutine is
    ///   dead afterwards.
    public func resume(arguments: Int32, from host: LuaStack, deadline: LuaDeadline? = nil) throws(LuaError) -> Outcome {
        var results: Int32 = 0
        let (status, describeStatus) = host.runtime.withGuestLimits(on: stack.state, deadline: deadline) { () -> (Int32, Int32) in
            let status = lua_resume(stack.state, host.state, arguments, &results)
            // Describing the error may call its `__tostring`: plugin code, so still under the limits.
            let describeStatus = status == LUA_ERRRUN ? moonblade_describe_coroutine_error(host.state, stack.state) : LUA_OK
            return (status, describeStatus)
        }
        if status == LUA_OK || status == LUA_YIELD, let limitError = host.runtime.limitError() {
            stack.pop(results)  // it caught a limit error in a coroutine of its own and went on
            throw limitError
        }
        switch status {
        case LUA_OK: return .returned(results)
        case LUA_YIELD: return .yielded(results)
        case LUA_ERRRUN:
            throw host.popError(status: describeStatus == LUA_OK ? LUA_ERRRUN : describeStatus)
        default:
            stack.pushCopy(of: -1)
            lua_xmove(stack.state, host.state, 1)
            throw host.popError(status: status)
        }
    }
}
