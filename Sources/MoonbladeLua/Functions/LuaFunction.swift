import CLua
import LuaGuest

/// A Swift function Lua can call.
///
/// It reads its arguments from the stack (indices 1 through `top`), pushes its results and returns
/// how many it pushed. To fail, it throws: the bridge turns the error into a Lua error raised in C
/// (boundary rule 1), which Lua's `pcall` can catch. The message is the error's description with the
/// calling Lua line in front, like `luaL_error`; a thrown ``LuaError`` keeps the place it already has.
public typealias LuaFunction = (LuaStack) throws -> Int32

/// The retained Swift side of a Lua function; the Lua userdata holding it releases it on `__gc`.
///
/// `Unmanaged` below, all three: the box travels through C as the userdata's `void *`, and a C pointer
/// has no checked form of a Swift reference (the retain it carries is the userdata's own).
private final class LuaFunctionBox {
    let body: LuaFunction

    init(_ body: @escaping LuaFunction) {
        self.body = body
    }
}

/// Called by `moonblade_trampoline` in C. Never raises: a thrown error becomes an error value on
/// the stack and the `moonblade_raise` marker, and C raises it.
private let luaFunctionEntry: moonblade_swift_entry = { state, function in
    let stack = LuaStack(state!)
    let box = Unmanaged<LuaFunctionBox>.fromOpaque(function!).takeUnretainedValue()
    // Host work done by the Swift function (pushing results) is exempt from the guest memory limit.
    let wasEnforcing = moonblade_suspend_memory_limit(state)
    defer { moonblade_resume_memory_limit(state, wasEnforcing) }
    do {
        return try box.body(stack)
    } catch {
        stack.pushRaisedError(error)
        return moonblade_raise
    }
}

private let luaFunctionRelease: moonblade_swift_release = { function in
    Unmanaged<LuaFunctionBox>.fromOpaque(function!).release()
}

extension LuaStack {
    /// Pushes a Lua function that runs `body`.
    public func push(function body: @escaping LuaFunction) {
        let box = Unmanaged.passRetained(LuaFunctionBox(body)).toOpaque()
        moonblade_push_swift_function(state, luaFunctionEntry, luaFunctionRelease, box)
    }

    /// Pushes the Lua error value for a Swift error and remembers the Swift error, so that the host
    /// gets it back as `LuaError.underlying` if nothing in Lua catches it.
    fileprivate func pushRaisedError(_ error: any Error) {
        if let luaError = error as? LuaError {
            pushError(message: luaError.message, underlying: luaError.underlying)  // it names its place already
        } else {
            pushError(message: callerLocation().map { "\($0): \(error)" } ?? "\(error)", underlying: error)
        }
    }
}
