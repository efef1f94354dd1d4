import CLua

/// The baseline for the mapping: what a C programmer would write to move an ``ItemsState`` to and
/// from a Lua table, field by field with the raw C API (raw access, as Moonblade's boundary rules ask).
extension ItemsState {
    /// Pushes the state as `{ counter = …, items = { { id, title, done, score }, … } }`.
    public func pushByHand(onto lua: OpaquePointer) {
        lua_createtable(lua, 0, 2)
        setField(lua, "counter") { lua_pushinteger(lua, lua_Integer(counter)) }
        setField(lua, "items") {
            lua_createtable(lua, Int32(items.count), 0)
            for (index, item) in items.enumerated() {
                lua_createtable(lua, 0, 4)
                setField(lua, "id") { lua_pushinteger(lua, lua_Integer(item.id)) }
                setField(lua, "title") {
                    var title = item.title
                    title.withUTF8 { _ = lua_pushlstring(lua, $0.baseAddress, $0.count) }
                }
                setField(lua, "done") { lua_pushboolean(lua, item.done ? 1 : 0) }
                setField(lua, "score") { lua_pushnumber(lua, item.score) }
                lua_rawseti(lua, -2, lua_Integer(index + 1))
            }
        }
    }

    /// Reads the table at `index` back, or nil where a field is missing or of the wrong type.
    public init?(byHandFrom lua: OpaquePointer, at index: Int32) {
        self.init()
        guard let counter = Self.integerField(lua, index, "counter") else { return nil }
        self.counter = counter
        guard Self.rawGetField(lua, index, "items") == LUA_TTABLE else {
            moonblade_pop(lua, 1)
            return nil
        }
        defer { moonblade_pop(lua, 1) }
        let count = Int(lua_rawlen(lua, -1))
        items.reserveCapacity(count)
        for offset in 0..<count {
            guard lua_rawgeti(lua, -1, lua_Integer(offset + 1)) == LUA_TTABLE else {
                moonblade_pop(lua, 1)
                return nil
            }
            defer { moonblade_pop(lua, 1) }
            let item = lua_absindex(lua, -1)
            guard let id = Self.integerField(lua, item, "id"),
                let title = Self.stringField(lua, item, "title"),
                let done = Self.booleanField(lua, item, "done"),
                let score = Self.numberField(lua, item, "score")
            else { return nil }
            items.append(BenchmarkItem(id: id, title: title, done: done, score: score))
        }
    }

    /// Pushes a value with `push` and stores it as `key` in the table just below it.
    private func setField(_ lua: OpaquePointer, _ key: StaticString, push: () -> Void) {
        lua_pushlstring(
            lua, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self), key.utf8CodeUnitCount)
        push()
        lua_rawset(lua, -3)
    }

    /// Pushes `table[key]` (raw) and returns its type.
    private static func rawGetField(_ lua: OpaquePointer, _ table: Int32, _ key: StaticString) -> Int32 {
        lua_pushlstring(
            lua, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self), key.utf8CodeUnitCount)
        return lua_rawget(lua, table < 0 ? table - 1 : table)
    }

    private static func integerField(_ lua: OpaquePointer, _ table: Int32, _ key: StaticString) -> Int? {
        defer { moonblade_pop(lua, 1) }
        guard rawGetField(lua, table, key) == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(lua, -1, &isInteger)
        return isInteger != 0 ? Int(value) : nil
    }

    private static func numberField(_ lua: OpaquePointer, _ table: Int32, _ key: StaticString) -> Double? {
        defer { moonblade_pop(lua, 1) }
        guard rawGetField(lua, table, key) == LUA_TNUMBER else { return nil }
        return lua_tonumberx(lua, -1, nil)
    }

    private static func booleanField(_ lua: OpaquePointer, _ table: Int32, _ key: StaticString) -> Bool? {
        defer { moonblade_pop(lua, 1) }
        guard rawGetField(lua, table, key) == LUA_TBOOLEAN else { return nil }
        return lua_toboolean(lua, -1) != 0
    }

    private static func stringField(_ lua: OpaquePointer, _ table: Int32, _ key: StaticString) -> String? {
        defer { moonblade_pop(lua, 1) }
        guard rawGetField(lua, table, key) == LUA_TSTRING else { return nil }
        var length = 0
        let bytes = lua_tolstring(lua, -1, &length)
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }
}
