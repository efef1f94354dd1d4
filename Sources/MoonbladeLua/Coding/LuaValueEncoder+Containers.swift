import CLua

/// A keyed container writing into a Lua table at a fixed stack index.
struct LuaKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// Strong: an unowned reference would be retained around every write that may throw. A root
    /// encoder keeps its keyed containers (``LuaKeptContainers``), and lets them go when it goes.
    let encoder: LuaValueEncoder
    let table: Int32
    /// Keys become Lua integers (`[Int: V]`); otherwise they are strings.
    let integerKeys: Bool

    var codingPath: [any CodingKey] { encoder.path }

    @inline(__always) private var L: OpaquePointer { encoder.L }

    @inline(__always)
    private func set(_ key: Key, _ push: (OpaquePointer) -> Void) throws {
        guard table != 0 else { throw encoder.overflow() }
        encoder.pushKey(key, integer: integerKeys)
        push(L)
        lua_rawset(L, table)
    }

    mutating func encodeNil(forKey key: Key) throws {}  // an absent key is Lua's nil

    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(key) { lua_pushboolean($0, value ? 1 : 0) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(key) { LuaStack($0).push(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try set(key) { lua_pushnumber($0, value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try set(key) { lua_pushnumber($0, Double(value)) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try set(key) { lua_pushinteger($0, value) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try set(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        guard table != 0 else { throw encoder.overflow() }
        encoder.pushKey(key, integer: integerKeys)
        do { try LuaPathStep.with(key) { try encoder.pushUnsigned(value, step: $0) } } catch { lua_settop(L, -2); throw error }
        lua_rawset(L, table)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard table != 0 else { throw encoder.overflow() }
        encoder.pushKey(key, integer: integerKeys)
        do { try LuaPathStep.with(key) { try encoder.pushValue(value, step: $0) } } catch { lua_settop(L, -2); throw error }
        lua_rawset(L, table)  // a nil value (an Optional inside) leaves the key absent
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = nestedEncoder(forKey: key)
        return KeyedEncodingContainer(LuaKeyedEncodingContainer<NestedKey>(encoder: nested, table: nested.tableIndex, integerKeys: false))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = nestedEncoder(forKey: key)
        return LuaUnkeyedEncodingContainer(encoder: nested, table: nested.tableIndex)
    }

    private func nestedEncoder(forKey key: Key) -> LuaValueEncoder {
        if table == 0 { return encoder }  // dead: so are its children
        encoder.pushKey(key, integer: integerKeys)
        return encoder.nestedEncoder(storingInto: table, path: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        if table == 0 { return encoder }
        return encoder.superEncoder(storingInto: table, key: LuaCodingKey.super, integer: false, path: codingPath + [LuaCodingKey.super])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        if table == 0 { return encoder }
        return encoder.superEncoder(storingInto: table, key: key, integer: integerKeys, path: codingPath + [key])
    }
}

/// An unkeyed container writing the sequence `1…n` of a Lua table at a fixed stack index.
struct LuaUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    unowned(unsafe) let encoder: LuaValueEncoder
    let table: Int32
    private(set) var count = 0

    init(encoder: LuaValueEncoder, table: Int32) {
        self.encoder = encoder
        self.table = table
    }

    var codingPath: [any CodingKey] { encoder.path }

    @inline(__always) private var L: OpaquePointer { encoder.L }

    @inline(__always)
    private mutating func append(_ push: (OpaquePointer) -> Void) throws {
        guard table != 0 else { throw encoder.overflow() }
        push(L)
        count += 1
        lua_rawseti(L, table, lua_Integer(count))
    }

    mutating func encodeNil() throws {
        guard table != 0 else { throw encoder.overflow() }
        try encoder.pushNilItem(position: count + 1)
        count += 1
        lua_rawseti(L, table, lua_Integer(count))
    }

    mutating func encode(_ value: Bool) throws { try append { lua_pushboolean($0, value ? 1 : 0) } }
    mutating func encode(_ value: String) throws { try append { LuaStack($0).push(value) } }
    mutating func encode(_ value: Double) throws { try append { lua_pushnumber($0, value) } }
    mutating func encode(_ value: Float) throws { try append { lua_pushnumber($0, Double(value)) } }
    mutating func encode(_ value: Int) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int8) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int16) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int32) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int64) throws { try append { lua_pushinteger($0, value) } }
    mutating func encode(_ value: UInt8) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt16) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt32) throws { try append { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws {
        guard table != 0 else { throw encoder.overflow() }
        try encoder.pushUnsigned(value, step: .position(count + 1))
        count += 1
        lua_rawseti(L, table, lua_Integer(count))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard table != 0 else { throw encoder.overflow() }
        try encoder.storeItem(value, at: count + 1, in: table)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = nestedEncoder()
        return KeyedEncodingContainer(LuaKeyedEncodingContainer<NestedKey>(encoder: nested, table: nested.tableIndex, integerKeys: false))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = nestedEncoder()
        return LuaUnkeyedEncodingContainer(encoder: nested, table: nested.tableIndex)
    }

    private mutating func nestedEncoder() -> LuaValueEncoder {
        if table == 0 { return encoder }
        count += 1
        lua_pushinteger(L, lua_Integer(count))
        return encoder.nestedEncoder(storingInto: table, path: codingPath + [LuaCodingKey(index: count)])
    }

    mutating func superEncoder() -> any Encoder {
        if table == 0 { return encoder }
        count += 1
        let key = LuaCodingKey(index: count)
        return encoder.superEncoder(storingInto: table, key: key, integer: true, path: codingPath + [key])
    }
}

/// A single value pushed at the encoder's slot.
struct LuaSingleValueEncodingContainer: SingleValueEncodingContainer {
    unowned(unsafe) let encoder: LuaValueEncoder

    var codingPath: [any CodingKey] { encoder.path }

    @inline(__always)
    private func put(_ push: (OpaquePointer) -> Void) throws {
        try encoder.beginSingleValue()
        push(encoder.L)
        encoder.endSingleValue()
    }

    mutating func encodeNil() throws { try put { lua_pushnil($0) } }
    /// Puts the `null` sentinel (``LuaStack/pushNull()``), which a table keeps where it would drop `nil`.
    func encodeNull() throws { try put { LuaStack($0).pushNull() } }
    mutating func encode(_ value: Bool) throws { try put { lua_pushboolean($0, value ? 1 : 0) } }
    mutating func encode(_ value: String) throws { try put { LuaStack($0).push(value) } }
    mutating func encode(_ value: Double) throws { try put { lua_pushnumber($0, value) } }
    mutating func encode(_ value: Float) throws { try put { lua_pushnumber($0, Double(value)) } }
    mutating func encode(_ value: Int) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int8) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int16) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int32) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int64) throws { try put { lua_pushinteger($0, value) } }
    mutating func encode(_ value: UInt8) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt16) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt32) throws { try put { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws {
        try encoder.beginSingleValue()
        try encoder.pushUnsigned(value, step: nil)
        encoder.endSingleValue()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.beginSingleValue()
        try encoder.pushValue(value, step: nil)
        encoder.endSingleValue()
    }
}
