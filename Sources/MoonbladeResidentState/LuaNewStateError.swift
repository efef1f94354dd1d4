import MoonbladeLua

/// The state a Lua updater left can be no version of the state: a table in it contains itself, or it
/// is nested deeper than the coders go. Found after the updater returned, while its draft was
/// finished; `error` has Lua's message and the place and traceback it was raised with.
package struct LuaNewStateError: Error {
    /// The error finishing the new state raised.
    package let error: LuaError
}
