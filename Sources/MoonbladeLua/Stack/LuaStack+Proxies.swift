import CLua
import LuaGuest

extension LuaStack {
    /// The index of the plain table the value at `index` stands for: for a read-only view of the
    /// resident state, the resident table it shows; for a draft, its copy (or, unwritten, its base);
    /// for anything else `index` itself. May push one value, which the caller pops.
    ///
    /// So that state a plugin passes on (`ctx.deps.storage.write { value = ctx.state().todos }`) is
    /// read as the data it shows, not as an empty proxy. Raw reads only: nothing here can raise.
    func resolveStateProxy(at index: Int32) -> Int32 {
        guard lua_type(state, index) == LUA_TTABLE else { return index }
        let index = absolute(index)
        return moonblade_resolve_proxy(state, index) != 0 ? top : index
    }
}
