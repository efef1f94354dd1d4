import CLua

/// Helpers the Lua encoder and decoder share. Everything here is raw and cannot raise.
enum LuaCoding {
    /// How many nested values the coders follow before they give up (a guard against runaway
    /// recursion, like `JSONDecoder`'s).
    static let maximumDepth = 512

    /// Free stack slots made sure of at every nesting level; a container uses at most three at once.
    static let slotMargin: Int32 = 8

    /// Pushes the string's UTF-8 bytes exactly.
    @inline(__always)
    static func push(_ L: OpaquePointer, _ string: String) {
        var string = string
        string.withUTF8 { bytes in
            _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
        }
    }

    @inline(__always)
    static func isNull(_ L: OpaquePointer, _ index: Int32) -> Bool {
        lua_type(L, index) == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == nil
    }

    /// Whether the value at `index` counts as absent: `nil`, nothing, or the `null` sentinel.
    @inline(__always)
    static func isNilOrNull(_ L: OpaquePointer, _ index: Int32) -> Bool {
        let type = lua_type(L, index)
        return type <= LUA_TNIL || (type == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == nil)
    }

    /// The bytes of the string at `index` (which must be a string), valid while it stays on the stack.
    @inline(__always)
    static func stringBytes(_ L: OpaquePointer, _ index: Int32) -> UnsafeBufferPointer<UInt8> {
        var count = 0
        let bytes = lua_tolstring(L, index, &count)
        return UnsafeBufferPointer(start: UnsafeRawPointer(bytes)?.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        var bits: UInt64 = 0
        while offset + 8 <= bytes.count {
            bits |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bits |= UInt64(base[offset])
            offset += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// What a person should read for the value at `index` in "found …": `string "yes"`, `integer 3`,
    /// `number 3.5`, `boolean true`, `nil`, `null`, `table`, `function`, `coroutine`, `userdata`.
    static func describeValue(_ L: OpaquePointer, _ index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TNONE, LUA_TNIL: return "nil"
        case LUA_TBOOLEAN: return "boolean \(lua_toboolean(L, index) != 0)"
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return "integer \(lua_tointegerx(L, index, nil))" }
            let number = lua_tonumberx(L, index, nil)
            return number.isNaN ? "number nan" : "number \(number)"
        case LUA_TSTRING:
            let text = String(decoding: stringBytes(L, index), as: UTF8.self)
            return "string \(LuaCodingPath.quoted(text))"
        case LUA_TTABLE: return "table"
        case LUA_TFUNCTION: return "function"
        case LUA_TTHREAD: return "coroutine"
        case LUA_TLIGHTUSERDATA: return lua_touserdata(L, index) == nil ? "null" : "userdata"
        default: return "userdata"
        }
    }

    /// A table key as it would be written in Lua: `[1]`, `[true]`, `"name"`.
    static func describeKey(_ L: OpaquePointer, _ index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING: return LuaCodingPath.quoted(String(decoding: stringBytes(L, index), as: UTF8.self))
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return "[\(lua_tointegerx(L, index, nil))]" }
            return "[\(lua_tonumberx(L, index, nil))]"
        case LUA_TBOOLEAN: return "[\(lua_toboolean(L, index) != 0)]"
        default: return "[\(describeValue(L, index))]"
        }
    }
}

/// What the coders know about a collection's table before they build or read it: how to presize it
/// and, for dictionaries, whether the keys are Lua integers.
///
/// The encoder asks only when a value opens an unkeyed container, or a keyed one with the standard
/// library's dictionary key type, so plain structs never pay for the conformance lookup.
protocol LuaTableShape {
    /// Items expected in the sequence part and entries expected in the hash part of the value at
    /// `pointer` (which points to a `Self`).
    static func luaTableSize(of pointer: UnsafeRawPointer) -> (sequence: Int32, fields: Int32)
    /// True for `[Int: V]`, whose keys become Lua integers.
    static var luaHasIntegerKeys: Bool { get }
}

/// Collections that encode as sequences: as many sequence slots as elements.
extension LuaTableShape where Self: Collection {
    static func luaTableSize(of pointer: UnsafeRawPointer) -> (sequence: Int32, fields: Int32) {
        (Int32(clamping: pointer.assumingMemoryBound(to: Self.self).pointee.count), 0)
    }
    static var luaHasIntegerKeys: Bool { false }
}

extension Array: LuaTableShape {}
extension ContiguousArray: LuaTableShape {}
extension Set: LuaTableShape {}

extension Dictionary: LuaTableShape {
    /// Dictionaries whose keys are neither `String`, `Int` nor `CodingKeyRepresentable` encode as a
    /// flat sequence `key1, value1, key2, value2, …` (their `Codable` form).
    static func luaTableSize(of pointer: UnsafeRawPointer) -> (sequence: Int32, fields: Int32) {
        let count = pointer.assumingMemoryBound(to: Self.self).pointee.count
        let keyed = Key.self == String.self || Key.self == Int.self || Key.self is any CodingKeyRepresentable.Type
        return keyed ? (0, Int32(clamping: count)) : (Int32(clamping: count * 2), 0)
    }
    static var luaHasIntegerKeys: Bool { Key.self == Int.self }
}
