import CLua

extension LuaStack {
    /// Pushes `null`: the sentinel that stands for a Swift `nil` inside a Lua sequence.
    ///
    /// Lua cannot store `nil` in a sequence (it would be a hole), so ``LuaEncoder`` with
    /// ``LuaEncoder/NilInSequenceEncodingStrategy/null`` writes this value instead, and
    /// ``LuaDecoder`` reads it as `nil` anywhere. It is a light userdata holding a null pointer: a
    /// host can hand it to plugins (e.g. as `moonblade.null`) so scripts can compare against it.
    public func pushNull() {
        lua_pushlightuserdata(state, nil)
    }

    /// Whether the value at `index` is the `null` sentinel pushed by ``pushNull()``.
    public func isNull(at index: Int32) -> Bool {
        lua_type(state, index) == LUA_TLIGHTUSERDATA && lua_touserdata(state, index) == nil
    }
}

extension LuaStack {
    /// The value at `index` as error messages name it after "found": `string "yes"`, `integer 3`,
    /// `number 3.5`, `boolean true`, `nil`, `null`, `table`, `function`, …
    public func describe(at index: Int32) -> String {
        LuaCoding.describeValue(state, index)
    }
}
