import CLua

extension LuaValueDecoder {
    /// Decodes the value at `index` through the resident state's cache: a table met before as a `T`
    /// is not read again; a changed collection whose older table was decoded is patched; anything
    /// else is decoded in full and remembered (see ``LuaDecodingCache`` for what is kept).
    func decodeCached<T: Decodable, K: CodingKey>(
        _ type: T.Type, at index: Int32, key: K?, cache: LuaDecodingCache.Session
    ) throws -> T {
        let patchable = T.self as? any LuaStatePatchable.Type
        // A single-value container re-reading its own table (key nil, same index) is the same value.
        guard lua_type(L, index) == LUA_TTABLE, key != nil || index != self.index else {
            return try decodeNested(T.self, at: index, key: key) { try T(from: $0) }
        }
        guard patchable != nil || collectionDepth == 0 else {
            // An item of a collection: its value lives in the collection's entry.
            cacheSuspension += 1
            defer { cacheSuspension -= 1 }
            return try decodeNested(T.self, at: index, key: key) { try T(from: $0) }
        }
        let id = cache.id(ofTableAt: index, L)
        if let id, let hit = cache.value(id: id, type: T.self) {
            return hit as! T
        }
        if patchable != nil { collectionDepth += 1 }
        defer { if patchable != nil { collectionDepth -= 1 } }
        let value: T
        if let patchable, let patched = try patch(patchable, at: index, key: key, cache: cache) {
            value = patched as! T
        } else {
            value = try decodeNested(T.self, at: index, key: key) { try T(from: $0) }
        }
        cache.store(value, type: T.self, id: id, tableAt: index, L)
        return value
    }

    /// The value of the changed table at `index`, made from the cached value of the table it came
    /// from; nil when there is none (or the collection cannot be patched), to decode it in full.
    private func patch<P: LuaStatePatchable, K: CodingKey>(
        _ type: P.Type, at index: Int32, key: K?, cache: LuaDecodingCache.Session
    ) throws -> P? {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard cache.pushChangeRecord(ofTableAt: index, L) else { return nil }
        let record = lua_gettop(L)
        stack.rawGet(table: record, field: "base")
        guard let baseID = cache.id(ofTableAt: -1, L), let base = cache.value(id: baseID, type: P.self) as? P else {
            return nil
        }
        return try decodeNested(P?.self, at: index, key: key) { decoder in
            try P.luaPatched(from: base, changes: LuaTableChanges(decoder: decoder, table: index, record: record))
        }
    }
}
