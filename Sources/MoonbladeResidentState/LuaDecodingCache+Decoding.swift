import CLua
import MoonbladeLua

extension LuaDecodingCache: LuaDecodingCaching {
    /// Decodes the value at `index` through the cache: a table met before as a `T` is not read again;
    /// a changed collection whose older table was decoded is patched; anything else is decoded in full
    /// and remembered (see ``LuaDecodingCache`` for what is kept).
    package func decodeCached<T: Decodable>(
        _ type: T.Type, at index: Int32, step: LuaPathStep?, session: LuaDecodingSession, decoder: LuaValueDecoder
    ) throws -> T {
        let L = decoder.luaState
        // A single-value container re-reading its own table (step nil, same index) is the same value.
        guard lua_type(L, index) == LUA_TTABLE, step != nil || index != decoder.valueIndex else {
            return try decoder.decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        let patchable = patchableType(T.self)
        // A changed root is a new table every time (and an unchanged one is not decoded at all), so a
        // cache entry for it would never be met again; only a patchable one is kept, for the next
        // version to patch.
        guard patchable != nil || index != session.pendingRoot else {
            return try decoder.decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        guard patchable != nil || !decoder.isInCollection else {
            // An item of a collection: its value lives in the collection's entry.
            return try decoder.withoutCache { try decoder.decodeNested(T.self, at: index, step: step) { try T(from: $0) } }
        }
        let id = id(ofTableAt: index, in: session, L)
        if let id, let hit = value(id: id, type: T.self) {
            return hit as! T
        }
        // A changed table: what the table it came from decoded to is superseded by this value.
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let record = pushChangeRecord(ofTableAt: index, in: session, L) ? top + 1 : nil
        var baseID: Int64?
        if let record {
            lua_rawgeti(L, record, 1)  // the older table
            baseID = self.id(ofTableAt: -1, in: session, L)
            lua_settop(L, record)
        }
        let value: T = try decoder.inCollection(patchable != nil) {
            if let patchable, let record, let baseID, let base = self.value(id: baseID, type: T.self),
                let patched = try patch(patchable, from: base, at: index, step: step, record: record, decoder: decoder)
            {
                return patched as! T
            } else if patchable == nil, let record, let baseID, holdsValue(id: baseID, type: T.self) {
                // Its older table was decoded as a `T`: its keys passed, and the record lists every other.
                return try decoder.vouching(keysOf: index, record: record) {
                    try decoder.decodeNested(T.self, at: index, step: step) { try T(from: $0) }
                }
            }
            return try decoder.decodeNested(T.self, at: index, step: step) { try T(from: $0) }
        }
        store(value, id: id, tableAt: index, in: session, L)
        if let baseID { supersede(id: baseID, type: T.self) }
        return value
    }

    /// The value of the changed table at `index` made from `base`, the value of the table it came
    /// from, and its change `record`; nil when the collection cannot be patched, to decode it in full.
    private func patch<P: LuaStatePatchable>(
        _ type: P.Type, from base: Any, at index: Int32, step: LuaPathStep?, record: Int32, decoder: LuaValueDecoder
    ) throws -> P? {
        try decoder.decodeNested(P?.self, at: index, step: step) { decoder in
            try P.luaPatched(from: base as! P, changes: LuaTableChanges(decoder: decoder, table: index, record: record))
        }
    }
}
