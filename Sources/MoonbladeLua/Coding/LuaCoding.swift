import CLua

/// Helpers the Lua encoder and decoder share. Everything here is raw and cannot raise.
package enum LuaCoding {
    /// How many nested values the coders follow before they give up (a guard against runaway
    /// recursion, like `JSONDecoder`'s).
    static let maximumDepth = 512

    /// Free stack slots made sure of at every nesting level; a container uses at most three at once.
    static let slotMargin: Int32 = 8

    /// Whether the value at `index` counts as absent: `nil`, nothing, or the `null` sentinel.
    @inline(__always)
    static func isNilOrNull(_ L: OpaquePointer, _ index: Int32) -> Bool {
        isNilOrNull(L, index, type: lua_type(L, index))
    }

    /// Whether the value at `index`, whose Lua type is `type`, is absent, `nil` or the `null` sentinel.
    @inline(__always)
    static func isNilOrNull(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Bool {
        type <= LUA_TNIL || (type == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == nil)
    }

    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var bits: UInt64 = 0
        while offset + 8 <= bytes.count {
            bits |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bits |= UInt64(bytes[offset])
            offset += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// The string the bytes spell, or nil when they are not valid UTF-8. ASCII (most state strings
    /// and keys) needs no validation, and `String(decoding:)` is the fast path.
    @inline(__always)
    package static func string(validatingUTF8 bytes: UnsafeRawBufferPointer) -> String? {
        isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// What a person should read for the value at `index` in "found …": `string "yes"`, `integer 3`,
    /// `number 3.5`, `boolean true`, `nil`, `null`, `table`, `function`, `coroutine`, `userdata`.
    static func describeValue(_ L: OpaquePointer, _ index: Int32) -> String {
        let stack = LuaStack(L)
        switch stack.type(at: index) {
        case .none, .nil: return "nil"
        case .boolean: return "boolean \(lua_toboolean(L, index) != 0)"
        case .number:
            if stack.isInteger(at: index) { return "integer \(lua_tointegerx(L, index, nil))" }
            let number = lua_tonumberx(L, index, nil)
            return number.isNaN ? "number nan" : "number \(number)"
        case .string: return "string \(LuaCodingPath.quoted(stack.string(at: index)!))"
        case .lightUserdata where lua_touserdata(L, index) == nil: return "null"
        case .thread: return "coroutine"
        case let other: return other.description  // table, function, userdata
        }
    }

    /// A table key as it would be written in Lua: `[1]`, `[true]`, `"name"`.
    static func describeKey(_ L: OpaquePointer, _ index: Int32) -> String {
        let stack = LuaStack(L)
        switch stack.type(at: index) {
        case .string: return LuaCodingPath.quoted(stack.string(at: index)!)
        case .number:
            if stack.isInteger(at: index) { return "[\(lua_tointegerx(L, index, nil))]" }
            return "[\(lua_tonumberx(L, index, nil))]"
        case .boolean: return "[\(lua_toboolean(L, index) != 0)]"
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
