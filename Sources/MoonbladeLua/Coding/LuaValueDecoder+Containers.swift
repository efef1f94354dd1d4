import CLua

/// A keyed container reading a Lua table at a fixed stack index, raw.
struct LuaKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // Unowned: the standard library's box copies the container for every read, and a strong reference
    // would be retained there (an encoding container's writes work in place: it holds its coder strongly).
    unowned(unsafe) let decoder: LuaValueDecoder
    let table: Int32
    /// Keys are Lua integers (`[Int: V]`); otherwise strings.
    let integerKeys: Bool

    var codingPath: [any CodingKey] { decoder.path }

    @inline(__always) private var L: OpaquePointer { decoder.L }

    var allKeys: [Key] {
        var keys: [Key] = []
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            lua_settop(L, -2)
            if lua_type(L, -1) == LUA_TSTRING {
                if let key = Key(stringValue: decoder.stack.string(at: -1)!) { keys.append(key) }
            } else if lua_isinteger(L, -1) != 0 {
                if let key = Key(intValue: Int(lua_tointegerx(L, -1, nil))) { keys.append(key) }
            }
        }
        return keys
    }

    /// Pushes `table[key]` (raw) and returns its type.
    @discardableResult @inline(__always)
    private func lookup(_ key: Key) -> Int32 {
        if integerKeys, let int = key.intValue {
            return lua_rawgeti(L, table, lua_Integer(int))
        }
        decoder.keyStrings.push(key, L)
        return lua_rawget(L, table)
    }

    func contains(_ key: Key) -> Bool {
        defer { lua_settop(L, -2) }
        return lookup(key) != LUA_TNIL
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let found = lookup(key)
        defer { lua_settop(L, -2) }
        return LuaCoding.isNilOrNull(L, -1, type: found)
    }

    // A field's read pushes its value (`pushRequired`, `present`) and pops it in a `defer`, thrown or not.
    // Written out per type rather than passing the read as a closure: the compiler keeps such a
    // closure a function of its own, a call and a context per field. The reads go through
    // ``LuaScalar``, and only a failure calls the decoder (see there for why).

    /// Pushes a required field's value and returns its Lua type.
    @discardableResult @inline(__always)
    private func pushRequired(_ key: Key) throws -> Int32 {
        let found = lookup(key)
        guard found != LUA_TNIL else { throw missing(key) }
        return found
    }

    /// The error for a required `key` that is absent (`lookup` pushed its nil). A key that is not
    /// valid UTF-8 reaches ``allKeys`` repaired, with U+FFFD in it, and is then not found under that
    /// name: the real problem is named instead.
    private func missing(_ key: Key) -> any Error {
        guard !integerKeys, key.stringValue.unicodeScalars.contains("\u{FFFD}") else {
            return decoder.keyNotFound(key, integer: integerKeys)
        }
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            lua_settop(L, -2)
            if decoder.stack.withStringBytes(at: -1, { LuaCoding.string(validatingUTF8: $0) == nil }) == true {
                let found = LuaCoding.describeKey(L, -1)
                lua_settop(L, -2)
                return decoder.corrupted(key: nil, "expected a table with string keys, found key \(found) (not valid UTF-8)")
            }
        }
        return decoder.keyNotFound(key, integer: integerKeys)
    }

    /// Pushes an optional field's value and returns its absolute index; nil when absent or `null`.
    @inline(__always)
    private func present(_ key: Key) -> Int32? {
        let found = lookup(key)
        let index = lua_gettop(L)
        return LuaCoding.isNilOrNull(L, index, type: found) ? nil : index
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeScalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeScalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeScalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeScalar(type, forKey: key) }

    /// A scalar field, for each scalar type (inlined, so specialized at each).
    @inline(__always)
    private func decodeScalar<T: LuaScalar>(_ type: T.Type, forKey key: Key) throws -> T {
        let L = self.L
        let found = try pushRequired(key)
        defer { lua_settop(L, -2) }
        guard let value = T.read(L, -1, type: found) else { throw T.failure(at: lua_gettop(L), in: decoder, key: key) }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        defer { lua_settop(L, -2) }
        try pushRequired(key)
        let index = lua_gettop(L)
        return try LuaPathStep.with(key) { try decoder.decodeValue(T.self, at: index, step: $0) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeScalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeScalarIfPresent(type, forKey: key) }

    @inline(__always)
    private func decodeScalarIfPresent<T: LuaScalar>(_ type: T.Type, forKey key: Key) throws -> T? {
        let L = self.L
        let found = lookup(key)
        defer { lua_settop(L, -2) }
        guard !LuaCoding.isNilOrNull(L, -1, type: found) else { return nil }
        guard let value = T.read(L, -1, type: found) else { throw T.failure(at: lua_gettop(L), in: decoder, key: key) }
        return value
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        defer { lua_settop(L, -2) }
        guard let index = present(key) else { return nil }
        return try LuaPathStep.with(key) { try decoder.decodeValue(T.self, at: index, step: $0) }
    }

    /// Leaves `table[key]` on the stack (until the value owning this container is done) and returns a
    /// decoder for it.
    private func childDecoder(forKey key: any CodingKey, lookedUp type: Int32, required: Bool) throws -> LuaValueDecoder {
        if required && type == LUA_TNIL {
            lua_settop(L, -2)
            throw (key as? Key).map(missing) ?? decoder.keyNotFound(key, integer: integerKeys)
        }
        return try decoder.child(path: codingPath + [key], index: lua_gettop(L))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let child = try childDecoder(forKey: key, lookedUp: lookup(key), required: true)
        return KeyedDecodingContainer(try child.keyedContainer(NestedKey.self, at: lua_gettop(L)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let child = try childDecoder(forKey: key, lookedUp: lookup(key), required: true)
        return try child.unkeyedContainer(at: lua_gettop(L))
    }

    func superDecoder() throws -> any Decoder {
        decoder.stack.push(LuaCodingKey.super.stringValue)
        return try childDecoder(forKey: LuaCodingKey.super, lookedUp: lua_rawget(L, table), required: false)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try childDecoder(forKey: key, lookedUp: lookup(key), required: false)
    }
}

/// An unkeyed container reading the sequence `1…count` of a Lua table at a fixed stack index.
struct LuaUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    unowned(unsafe) let decoder: LuaValueDecoder
    let table: Int32
    let total: Int32
    private var position: Int32 = 0

    init(decoder: LuaValueDecoder, table: Int32, count: Int32) {
        self.decoder = decoder
        self.table = table
        self.total = count
    }

    var codingPath: [any CodingKey] { decoder.path }
    var count: Int? { Int(total) }
    var isAtEnd: Bool { position >= total }
    var currentIndex: Int { Int(position) }

    @inline(__always) private var L: OpaquePointer { decoder.L }

    /// The key of the next item: its Lua position, 1-based.
    private var nextKey: LuaCodingKey { LuaCodingKey(index: Int(position) + 1) }

    /// Reads the next item with `read`, which gets the decoder, the item's absolute index, its Lua
    /// type and its position, and moves past it.
    @inline(__always)
    private mutating func next<T>(_ type: T.Type, _ read: (LuaValueDecoder, Int32, Int32, Int) throws -> T) throws -> T {
        guard position < total else {
            throw DecodingError.valueNotFound(
                T.self,
                .init(codingPath: codingPath + [nextKey], debugDescription: "expected \(T.self), found the end of a sequence of \(total)"))
        }
        let luaType = lua_rawgeti(L, table, lua_Integer(position + 1))
        defer { lua_settop(L, -2) }
        let value = try read(decoder, lua_gettop(L), luaType, Int(position) + 1)
        position += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard position < total else {
            throw DecodingError.valueNotFound(
                Any?.self, .init(codingPath: codingPath + [nextKey], debugDescription: "found the end of a sequence of \(total)"))
        }
        let found = lua_rawgeti(L, table, lua_Integer(position + 1))
        defer { lua_settop(L, -2) }
        guard LuaCoding.isNilOrNull(L, -1, type: found) else { return false }
        position += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try next(type) { try $0.decodeScalar(Bool.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: String.Type) throws -> String {
        try next(type) { try $0.decodeScalar(String.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try next(type) { try $0.decodeScalar(Double.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try next(type) { try $0.decodeScalar(Float.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        try next(type) { try $0.decodeScalar(Int.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        try next(type) { try $0.decodeScalar(Int8.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try next(type) { try $0.decodeScalar(Int16.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try next(type) { try $0.decodeScalar(Int32.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try next(type) { try $0.decodeScalar(Int64.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt {
        try next(type) { try $0.decodeScalar(UInt.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try next(type) { try $0.decodeScalar(UInt8.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try next(type) { try $0.decodeScalar(UInt16.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try next(type) { try $0.decodeScalar(UInt32.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try next(type) { try $0.decodeScalar(UInt64.self, at: $1, luaType: $2, key: LuaCodingKey(index: $3)) }
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decodeValue(T.self, at: $1, step: .position($3)) }
    }

    /// Leaves the next item on the stack (until the value owning this container is done), moves past
    /// it and returns a decoder for it.
    private mutating func childDecoder() throws -> LuaValueDecoder {
        guard position < total else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath + [nextKey], debugDescription: "found the end of a sequence of \(total)"))
        }
        let key = nextKey
        lua_rawgeti(L, table, lua_Integer(position + 1))
        position += 1
        return try decoder.child(path: codingPath + [key], index: lua_gettop(L))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let child = try childDecoder()
        return KeyedDecodingContainer(try child.keyedContainer(NestedKey.self, at: lua_gettop(L)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let child = try childDecoder()
        return try child.unkeyedContainer(at: lua_gettop(L))
    }

    mutating func superDecoder() throws -> any Decoder {
        try childDecoder()
    }
}

/// A single value at a fixed stack index.
struct LuaSingleValueDecodingContainer: SingleValueDecodingContainer {
    unowned(unsafe) let decoder: LuaValueDecoder
    let index: Int32

    var codingPath: [any CodingKey] { decoder.path }

    // Read without calling the decoder but to make an error (see ``LuaScalar`` for why).
    @inline(__always) private var L: OpaquePointer { decoder.L }

    func decodeNil() -> Bool { LuaCoding.isNilOrNull(L, index) }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeScalar(type) }
    func decode(_ type: String.Type) throws -> String { try decodeScalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeScalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeScalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeScalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeScalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeScalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeScalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeScalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeScalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeScalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeScalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeScalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeScalar(type) }

    @inline(__always)
    private func decodeScalar<T: LuaScalar>(_ type: T.Type) throws -> T {
        guard let value = T.read(L, index, type: lua_type(L, index)) else { throw T.failure(at: index, in: decoder, key: nil) }
        return value
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self, at: index, step: nil) }
}
