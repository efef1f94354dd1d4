import CLua

/// What a Lua value is, as a value that decodes itself from any Lua value needs to know: Lua keeps
/// integers and floats apart (`1` and `1.0`), which `Decoder`'s probes cannot tell (a float with an
/// integral value decodes as an `Int64` too).
public enum LuaValueKind: Sendable, Equatable {
    /// `nil`, nothing, or the `null` sentinel (``LuaStack/pushNull()``).
    case null
    /// `true` or `false`.
    case boolean
    /// A number of Lua's integer subtype: `1`, not `1.0`.
    case integer
    /// A number of Lua's float subtype, even one with an integral value: `1.0`, `0.5`.
    case float
    /// A string; a number is never one (Lua's coercion does not apply).
    case string
    /// A table and its kind; an empty table that is not marked as an object is an array.
    case table(LuaTableKind)
    /// Anything else (a function, a coroutine, userdata), described as error messages name it after
    /// "found": `function`, `coroutine`, `userdata`.
    case other(String)
}

/// A decoder that can tell what Lua value it decodes: ``LuaDecoder``'s.
public protocol LuaValueKindDecoding: Decoder {
    /// The kind of the value being decoded.
    var valueKind: LuaValueKind { get }
    /// How many keys lead from the root to the value being decoded: `codingPath.count`, without
    /// making the path.
    var codingPathCount: Int { get }
}

extension LuaValueDecoder: LuaValueKindDecoding {
    package var codingPathCount: Int { basePathCount + stepCount }

    package var valueKind: LuaValueKind {
        switch lua_type(L, index) {
        case LUA_TBOOLEAN: .boolean
        case LUA_TNUMBER: lua_isinteger(L, index) != 0 ? .integer : .float
        case LUA_TSTRING: .string
        case LUA_TTABLE: .table(LuaStack(L).tableKind(at: index) ?? .object)
        case _ where LuaCoding.isNilOrNull(L, index): .null
        default: .other(LuaCoding.describeValue(L, index))
        }
    }
}

/// An encoder that can put the `null` sentinel (``LuaStack/pushNull()``) where `encodeNil()` would
/// put `nil`: ``LuaEncoder``'s. A value with a null of its own (JSON's) uses it so that a table keeps
/// the member or element (`nil` would drop a key, or make a hole in a sequence).
public protocol LuaNullEncoding: Encoder {
    /// Encodes the `null` sentinel as this encoder's single value.
    func encodeNull() throws
}

extension LuaValueEncoder: LuaNullEncoding {
    func encodeNull() throws {
        try LuaSingleValueEncodingContainer(encoder: self).encodeNull()
    }
}
