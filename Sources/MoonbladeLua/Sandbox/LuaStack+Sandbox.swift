import CLua
import LuaGuest

extension LuaStack {
    /// Pushes a fresh sandbox: a global environment for untrusted code, to install with
    /// ``setEnvironment(ofChunkAt:)``.
    ///
    /// Code in a sandbox defines its own globals (they live in the sandbox), and:
    /// - reads the standard libraries through read-only views shared by every sandbox: `string.upper = nil`,
    ///   `rawset(string, …)`, `setmetatable(string, …)` and changes to the string metatable are errors;
    /// - gets an error naming the global when it reads one that is not defined (`undefined global 'pritn'`);
    /// - sees `_G` as the sandbox itself, and `load` compiles text only, into the sandbox by default;
    /// - may call `collectgarbage("count")` only; `setmetatable` refuses `__gc` finalizers.
    public func pushSandbox() throws(LuaError) {
        let status = moonblade_push_sandbox(state)
        guard status == LUA_OK else { throw popError(status: status) }
    }

    /// Pushes the Lua function `read_only(table, name)`, which returns a read-only view of `table`
    /// like the sandbox's libraries (`name` is what errors call it). For host glue that hands one
    /// table to every sandbox.
    public func pushReadOnlyViewFunction() {
        moonblade_pushcfunction(state, moonblade_read_only)
    }
}
