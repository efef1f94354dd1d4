import LuaGuest

/// Stops a VM's guest code from another thread: what Ctrl-C at a command line uses on a plugin that
/// runs away.
///
/// While an interrupt is on, the guest call running and every one that starts raise `interrupted`
/// at their next check of the limits (within ``LuaVM/Configuration/hookInterval`` instructions),
/// placed at the Lua line they were at: a ``LuaError/Kind/limit`` error that `pcall` in Lua cannot
/// swallow. It needs the count hook; a VM without one is never stopped.
public final class LuaInterrupter: @unchecked Sendable {
    // @unchecked Sendable: of the runtime it holds (to keep its limits alive), only the limits'
    // interrupt flag is touched, through C's `__atomic` builtins, which any thread may use.
    private let runtime: LuaRuntime

    init(_ runtime: LuaRuntime) {
        self.runtime = runtime
    }

    /// Stops the guest code running now and any that starts, until ``end()``.
    public func interrupt() {
        moonblade_request_interrupt(runtime.limits)
    }

    /// Lets guest code run again.
    public func end() {
        moonblade_end_interrupt(runtime.limits)
    }
}

extension LuaVM {
    /// What stops this VM's guest code from another thread.
    public var interrupter: LuaInterrupter { LuaInterrupter(runtime) }
}
