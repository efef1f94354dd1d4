import MoonbladeLua

/// A Lua updater of a table state returned something that is neither a table nor nil: a slip (a
/// stray `return n`), not a new state.
package struct LuaStateReturnError: Error {
    /// The Lua type name of what it returned (`"number"`, `"string"`, …).
    package let returned: String
}
