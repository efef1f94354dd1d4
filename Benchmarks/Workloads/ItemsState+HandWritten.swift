import CLua

/// The baseline for the mapping: what a C programmer would write to move an ``ItemsState`` to and
/// from a Lua table, field by field with the raw C API (raw access, as Moonblade's boundary rules ask).
extension ItemsState {
    /// Pushes the state as `{ counter = …, items = { { id, title, done, score }, … } }`.
    public func pushByHand(onto L: OpaquePointer) {
        lua_createtable(L, 0, 2)
        setField(L, "counter") { lua_pushinteger(L, lua_Integer(counter)) }
        setField(L, "items") {
            lua_createtable(L, Int32(items.count), 0)
            for (index, item) in items.enumerated() {
                lua_createtable(L, 0, 4)
                setField(L, "id") { lua_pushinteger(L, lua_Integer(item.id)) }
                setField(L, "title") {
                    var title = item.title
                    title.withUTF8 { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
                }
                setField(L, "done") { lua_pushboolean(L, item.done ? 1 : 0) }
                setField(L, "score") { lua_pushnumber(L, item.score) }
                lua_rawseti(L, -2, lua_Integer(index + 1))
            }
        }
    }

    /// Reads the table at `index` back, or nil where a field is missing or of the wrong type.
    public init?(byHandFrom L: OpaquePointer, at index: Int32) {
        self.init()
        guard let counter = Self.integerField(L, index, "counter") else { return nil }
        self.counter = counter
        guard Self.rawGetField(L, index, "items") == LUA_TTABLE else {
            moonblade_pop(L, 1)
            return nil
        }
        defer { moonblade_pop(L, 1) }
        let count = Int(lua_rawlen(L, -1))
        items.reserveCapacity(count)
        for offset in 0..<count {
            guard lua_rawgeti(L, -1, lua_Integer(offset + 1)) == LUA_TTABLE else {
                moonblade_pop(L, 1)
                return nil
            }
            defer { moonblade_pop(L, 1) }
            let item = lua_absindex(L, -1)
            guard let id = Self.integerField(L, item, "id"), let title = Self.stringField(L, item, "title"),
                let done = Self.booleanField(L, item, "done"), let score = Self.numberField(L, item, "score")
            else { return nil }
            items.append(BenchmarkItem(id: id, title: title, done: done, score: score))
        }
    }

    /// Pushes a value with `push` and stores it as `key` in the table just below it.
    private func setField(_ L: OpaquePointer, _ key: StaticString, push: () -> Void) {
        lua_pushlstring(L, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self), key.utf8CodeUnitCount)
        push()
        lua_rawset(L, -3)
    }

    /// Pushes `table[key]` (raw) and returns its type.
    private static func rawGetField(_ L: OpaquePointer, _ table: Int32, _ key: StaticString) -> Int32 {
        lua_pushlstring(L, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self), key.utf8CodeUnitCount)
        return lua_rawget(L, table < 0 ? table - 1 : table)
    }

    private static func integerField(_ L: OpaquePointer, _ table: Int32, _ key: StaticString) -> Int? {
        defer { moonblade_pop(L, 1) }
        guard rawGetField(L, table, key) == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, -1, &isInteger)
        return isInteger != 0 ? Int(value) : nil
    }

    private static func numberField(_ L: OpaquePointer, _ table: Int32, _ key: StaticString) -> Double? {
        defer { moonblade_pop(L, 1) }
        guard rawGetField(L, table, key) == LUA_TNUMBER else { return nil }
        return lua_tonumberx(L, -1, nil)
    }

    private static func booleanField(_ L: OpaquePointer, _ table: Int32, _ key: StaticString) -> Bool? {
        defer { moonblade_pop(L, 1) }
        guard rawGetField(L, table, key) == LUA_TBOOLEAN else { return nil }
        return lua_toboolean(L, -1) != 0
    }

    private static func stringField(_ L: OpaquePointer, _ table: Int32, _ key: StaticString) -> String? {
        defer { moonblade_pop(L, 1) }
        guard rawGetField(L, table, key) == LUA_TSTRING else { return nil }
        var length = 0
        let bytes = lua_tolstring(L, -1, &length)
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }
}
