import CLua

extension LuaValueDecoder {
    /// Decodes the value at `index` through the resident state's cache: a table met before as a `T`
    /// is not read again; a changed collection whose older table was decoded is patched; anything
    /// else is decoded in full and remembered (see ``LuaDecodingCache`` for what is kept).
    func decodeCached<T: Decodable>(
        _ type: T.Type, at index: Int32, step: LuaPathStep?, cache: LuaDecodingCache.Session
    ) throws -> T {
        // A single-value container re-reading its own table (step nil, same index) is the same value.
        guard lua_type(L, index) == LUA_TTABLE, step != nil || index != self.index else {
            return try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        let patchable = cache.patchableType(T.self)
        guard patchable != nil || index != cache.pendingRoot else {
            return try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        guard patchable != nil || collectionDepth == 0 else {
            // An item of a collection: its value lives in the collection's entry.
            cacheSuspension += 1
            defer { cacheSuspension -= 1 }
            return try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        let id = cache.id(ofTableAt: index, L)
        if let id, let hit = cache.value(id: id, type: T.self) {
            return hit as! T
        }
        // A changed table: what the table it came from decoded to is superseded by this value.
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let record = cache.pushChangeRecord(ofTableAt: index, L) ? top + 1 : nil
        var baseID: Int64?
        if let record {
            lua_rawgeti(L, record, 1)  // the older table
            baseID = cache.id(ofTableAt: -1, L)
            lua_settop(L, record)
        }
        if patchable != nil { collectionDepth += 1 }
        defer { if patchable != nil { collectionDepth -= 1 } }
        let value: T
        if let patchable, let record, let baseID, let base = cache.value(id: baseID, type: T.self),
            let patched = try patch(patchable, from: base, at: index, step: step, record: record)
        {
            value = patched as! T
        } else if patchable == nil, let record, let baseID, cache.holdsValue(id: baseID, type: T.self) {
            // Its older table was decoded as a `T`: its keys passed, and the record lists every other.
            let vouched = vouchedKeys
            vouchedKeys = (index, record)
            defer { vouchedKeys = vouched }
            value = try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        } else {
            value = try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        cache.store(value, id: id, tableAt: index, L)
        if let baseID { cache.supersede(id: baseID, type: T.self) }
        return value
    }

    /// The value of the changed table at `index` made from `base`, the value of the table it came
    /// from, and its change `record`; nil when the collection cannot be patched, to decode it in full.
    private func patch<P: LuaStatePatchable>(
        _ type: P.Type, from base: Any, at index: Int32, step: LuaPathStep?, record: Int32
    ) throws -> P? {
        try decodeNested(P?.self, at: index, step: step) { decoder in
            try P.luaPatched(from: base as! P, changes: LuaTableChanges(decoder: decoder, table: index, record: record))
        }
    }
}
