import CLua

/// The registry keys of the resident state's proxy tables.
private enum ProxyKey {
    static let viewMetatable = "moonblade.state.view"
    static let draftMetatable = "moonblade.state.draft"
    static let views = "moonblade.state.views"
    static let drafts = "moonblade.state.drafts"
}

extension LuaStack {
    /// Records the draft machinery's proxy tables (`{ view, draft, views, drafts }` at `index`) in the
    /// registry, for ``resolveStateProxy(at:)``.
    func registerStateProxies(tableAt index: Int32) {
        let table = absolute(index)
        for (field, key) in [
            ("view", ProxyKey.viewMetatable), ("draft", ProxyKey.draftMetatable), ("views", ProxyKey.views),
            ("drafts", ProxyKey.drafts),
        ] {
            rawGet(table: table, field: field)
            rawSet(table: moonblade_registryindex, field: key)
        }
    }

    /// The index of the plain table the value at `index` stands for: for a read-only view of the
    /// resident state, the resident table it shows; for a draft, its copy (or, unwritten, its base);
    /// for anything else `index` itself. May push one value, which the caller pops.
    ///
    /// So that state a plugin passes on (`ctx.deps.storage.write { value = ctx.state().todos }`) is
    /// read as the data it shows, not as an empty proxy. Raw reads only: nothing here can raise.
    public func resolveStateProxy(at index: Int32) -> Int32 {
        guard lua_type(state, index) == LUA_TTABLE, lua_getmetatable(state, index) != 0 else { return index }
        let index = absolute(index)
        let metatable = top
        rawGet(table: moonblade_registryindex, field: ProxyKey.viewMetatable)
        let isView = lua_rawequal(state, -1, metatable) != 0
        rawGet(table: moonblade_registryindex, field: ProxyKey.draftMetatable)
        let isDraft = lua_rawequal(state, -1, metatable) != 0
        guard isView || isDraft else {
            top = metatable - 1
            return index
        }
        // The proxy's entry in the machinery's weak table: the resident table, or the draft's record.
        top = metatable - 1
        rawGet(table: moonblade_registryindex, field: isView ? ProxyKey.views : ProxyKey.drafts)
        pushCopy(of: index)
        rawGet(table: -2)
        remove(at: -2)
        if isDraft, type(at: -1) == .table {
            if rawGet(table: -1, field: "copy") == .nil {
                pop()
                rawGet(table: -1, field: "base")
            }
            remove(at: -2)
        }
        return top
    }
}
