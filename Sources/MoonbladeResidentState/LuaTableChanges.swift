import CLua
import MoonbladeLua

/// What changed in one table of a pending state version since the table it was made from, for
/// ``LuaStatePatchable`` types to rebuild their value at the changed keys only.
///
/// Valid only inside ``LuaStatePatchable/luaPatched(from:changes:)``. Decoding errors carry the full
/// coding path (`state.todos[3].done: expected Bool, found string "yes"`).
package struct LuaTableChanges {
    /// A key of a changed table.
    package enum Key: Hashable, Sendable {
        /// An integer key: a sequence position (1-based, as Lua counts), also when written as a float
        /// with an integral value (`t[2.0]`, which Lua stores at 2).
        case position(Int)
        /// A string key.
        case name(String)
        /// Any other key (a fractional float, a boolean, a table, a string that is not UTF-8, …). Its value cannot be read back
        /// through these changes, so a collection with such a change is decoded in full (which reports it).
        case other
    }

    let decoder: LuaValueDecoder
    /// Absolute stack indices of the new table and of its change record.
    let table: Int32
    let record: Int32

    private var L: OpaquePointer { decoder.luaState }

    /// The keys whose values differ from the older table (set, replaced or removed).
    package var changedKeys: [Key] {
        // The record is `{ older table, key, key, … }`.
        let count = lua_rawlen(L, record)
        var keys: [Key] = []
        keys.reserveCapacity(max(0, Int(count) - 1))
        for position in stride(from: lua_Integer(2), through: lua_Integer(count), by: 1) {
            lua_rawgeti(L, record, position)
            defer { lua_settop(L, -2) }
            var isInteger: Int32 = 0
            // A float key with an integral value is stored at that integer: `t[2.0]` is `t[2]`.
            let integer = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isInteger) : 0
            if isInteger != 0 {
                keys.append(.position(Int(integer)))
            } else if let name = decoder.stack.withStringBytes(at: -1, { LuaCoding.string(validatingUTF8: $0) }) ?? nil {
                // Validated: a key whose bytes are not UTF-8 is `.other`, so the full decode reports it
                // (repaired, it would name no key of the table and be dropped without a word).
                keys.append(.name(name))
            } else {
                keys.append(.other)
            }
        }
        return keys
    }

    /// The raw length (`#` without metamethods) of the new table.
    package var count: Int { Int(lua_rawlen(L, table)) }

    /// Whether the new table has a non-nil value at `key`.
    package func contains(_ key: Key) -> Bool {
        defer { lua_settop(L, -2) }
        return push(key) != LUA_TNIL
    }

    /// Decodes the new table's value at `key` as an `E`; an absent value decodes as `nil` would.
    package func decode<E: Decodable>(_ type: E.Type, at key: Key) throws -> E {
        try decoder.reserve()
        push(key)
        defer { lua_settop(L, -2) }
        let index = lua_gettop(L)
        if case .position(let position) = key {
            return try decoder.decodeValue(E.self, at: index, step: .position(position))
        }
        let name = if case .name(let name) = key { name } else { "?" }
        return try LuaPathStep.with(LuaCodingKey(stringValue: name)) { try decoder.decodeValue(E.self, at: index, step: $0) }
    }

    /// `base` (an older table's array) patched to the new table, or nil when the new table is not a
    /// sequence that the changed keys explain (it is then decoded in full, which reports the problem).
    /// Handles growing, shrinking and items shifted by `table.remove`/`table.insert`.
    package func patchedArray<E: Decodable>(_ base: [E]) throws -> [E]? {
        let oldCount = base.count
        let newCount = count
        var written: [Int] = []
        var removed = 0
        for key in changedKeys {
            if key == .other { return nil }
            let present = contains(key)
            guard case .position(let position) = key else {
                if present { return nil }
                continue
            }
            if present {
                guard position >= 1 && position <= newCount else { return nil }
                written.append(position)
            } else if position <= newCount {
                return nil  // a hole
            } else if position <= oldCount {
                removed += 1
            }
        }
        // The new table is exactly 1…newCount when every old position past it was removed and every
        // new position past the old end was written.
        guard removed == max(0, oldCount - newCount),
            written.count(where: { $0 > oldCount }) == max(0, newCount - oldCount)
        else { return nil }
        var patched = base
        if newCount < oldCount { patched.removeLast(oldCount - newCount) }
        for position in written.sorted() {
            let item = try movedItem(to: position, in: base) ?? decode(E.self, at: .position(position))
            if position <= oldCount { patched[position - 1] = item } else { patched.append(item) }
        }
        return patched
    }

    /// The item of `base` whose very table now stands at `position`, one place away from where it
    /// was: what `table.remove` and `table.insert` do to every item after theirs. Reusing it keeps
    /// such a shift from decoding every moved item again.
    private func movedItem<E>(to position: Int, in base: [E]) -> E? {
        guard lua_rawgeti(L, table, lua_Integer(position)) == LUA_TTABLE else {
            lua_settop(L, -2)
            return nil
        }
        defer { lua_settop(L, -3) }  // the item and the older table
        lua_rawgeti(L, record, 1)  // the older table
        for source in [position + 1, position - 1] where source >= 1 && source <= base.count {
            lua_rawgeti(L, -1, lua_Integer(source))
            defer { lua_settop(L, -2) }
            if lua_rawequal(L, -1, -3) != 0 { return base[source - 1] }
        }
        return nil
    }

    /// `base` (an older table's dictionary) patched to the new table, or nil when a key that is not a
    /// string was set or removed (the table is then decoded in full, which reports it).
    package func patchedDictionary<V: Decodable>(_ base: [String: V]) throws -> [String: V]? {
        var patched = base
        for key in changedKeys {
            if key == .other { return nil }
            let present = contains(key)
            guard case .name(let name) = key else {
                if present { return nil }
                continue
            }
            patched[name] = present ? try decode(V.self, at: key) : nil
        }
        return patched
    }

    /// Pushes the new table's value at `key`, raw, and returns its type.
    @discardableResult
    private func push(_ key: Key) -> Int32 {
        switch key {
        case .position(let position): return lua_rawgeti(L, table, lua_Integer(position))
        case .name(let name):
            decoder.stack.push(name)
            return lua_rawget(L, table)
        case .other:
            lua_pushnil(L)
            return LUA_TNIL
        }
    }
}
