import CLua

/// Reads of Lua scalars as Swift values with nothing but the Lua state: nil when the value is not
/// one the type reads exactly, and the decoder then makes the error (``LuaValueDecoder``'s
/// `…Failure` methods say which).
///
/// Apart from the decoder so that a keyed container's field read does not call a method of the
/// decoder object on its way to success: the container holds the decoder `unowned(unsafe)`, and
/// every call on it is a retain and a release (~40 instructions a field).
enum LuaScalarRead {
    @inline(__always)
    static func bool(_ L: OpaquePointer, _ index: Int32) -> Bool? {
        lua_type(L, index) == LUA_TBOOLEAN ? lua_toboolean(L, index) != 0 : nil
    }

    /// A string's text; nil for another type or bytes that are not UTF-8.
    @inline(__always)
    static func string(_ L: OpaquePointer, _ index: Int32) -> String? {
        LuaStack(L).withStringBytes(at: index) { LuaCoding.string(validatingUTF8: $0) } ?? nil
    }

    /// A number the type holds exactly: an integer, or a float with an integral value (`3.0`, which
    /// `lua_tointegerx` converts); nil for another type, a fraction or a value out of range.
    @inline(__always)
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ L: OpaquePointer, _ index: Int32) -> I? {
        guard lua_type(L, index) == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, index, &isInteger)
        return isInteger != 0 ? I(exactly: value) : nil
    }

    /// Any float, or an integer a `Double` holds exactly.
    @inline(__always)
    static func double(_ L: OpaquePointer, _ index: Int32) -> Double? {
        guard lua_type(L, index) == LUA_TNUMBER else { return nil }
        guard lua_isinteger(L, index) != 0 else { return lua_tonumberx(L, index, nil) }
        let integer = lua_tointegerx(L, index, nil)
        let double = Double(integer)
        return Int64(exactly: double) == integer ? double : nil
    }

    /// A number as a `Float`, rounded to nearest (any integer too); nil for a finite number beyond
    /// its range.
    @inline(__always)
    static func float(_ L: OpaquePointer, _ index: Int32) -> Float? {
        guard lua_type(L, index) == LUA_TNUMBER else { return nil }
        let double = lua_isinteger(L, index) != 0 ? Double(lua_tointegerx(L, index, nil)) : lua_tonumberx(L, index, nil)
        let float = Float(double)
        return float.isFinite || !double.isFinite ? float : nil
    }
}
