import CLua
import LuaGuest

extension LuaStack {
    /// Pushes the Lua function `make_next(intercept, interceptors, index, item)`, which returns the
    /// `next` a Lua interceptor is given and its state, for the glue to close (`<close>`) when the
    /// interceptor returns or raises. `next` works once, until then; what it raises names the line that
    /// called it, even through a tail call (`return next(item)`), which a `next` written in Lua could not.
    package func pushInterceptorNextMaker() {
        moonblade_pushcfunction(state, moonblade_make_interceptor_next)
    }
}
