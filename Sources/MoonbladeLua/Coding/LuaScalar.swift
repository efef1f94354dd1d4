import CLua

/// A Swift scalar the Lua coders read with nothing but the Lua state (`read`), and whose failure to
/// read the decoder explains (`failure`).
///
/// Apart from the decoder so that a container's field read calls no method of the decoder object on
/// its way to success: containers hold their decoder `unowned(unsafe)`, and every call on it is a
/// retain and a release (~40 instructions a field). Read through one generic, inlined function per
/// container, specialized for each type at its call.
protocol LuaScalar {
    /// The value at `index`, whose Lua type is `type`, as `Self`, or nil when it does not read exactly.
    /// The type is the one the push that put the value there returned (`lua_rawget`, `lua_rawgeti`):
    /// a field read asks Lua for it once.
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Self?
    /// Why ``read(_:_:type:)`` said nil for the value at `index`, as the error a person reads.
    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error
}

extension Bool: LuaScalar {
    @inline(__always)
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Bool? {
        type == LUA_TBOOLEAN ? lua_toboolean(L, index) != 0 : nil
    }

    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error {
        decoder.mismatch(Bool.self, expected: "Bool", at: index, key: key)
    }
}

extension String: LuaScalar {
    /// A string's text; nil for another type or bytes that are not UTF-8.
    @inline(__always)
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> String? {
        guard type == LUA_TSTRING else { return nil }
        var count = 0
        let bytes = lua_tolstring(L, index, &count)
        return LuaCoding.string(validatingUTF8: UnsafeRawBufferPointer(start: bytes, count: count))
    }

    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error {
        guard lua_type(decoder.L, index) == LUA_TSTRING else {
            return decoder.mismatch(String.self, expected: "String", at: index, key: key)
        }
        return decoder.corrupted(key: key, "expected String, found a string that is not valid UTF-8")
    }
}

extension Double: LuaScalar {
    /// Any float, or an integer a `Double` holds exactly.
    @inline(__always)
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Double? {
        guard type == LUA_TNUMBER else { return nil }
        guard lua_isinteger(L, index) != 0 else { return lua_tonumberx(L, index, nil) }
        let integer = lua_tointegerx(L, index, nil)
        let double = Double(integer)
        return Int64(exactly: double) == integer ? double : nil
    }

    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error {
        let L = decoder.L
        guard lua_type(L, index) == LUA_TNUMBER else { return decoder.mismatch(Double.self, expected: "Double", at: index, key: key) }
        return decoder.corrupted(key: key, "expected Double, found integer \(lua_tointegerx(L, index, nil)) (no exact Double)")
    }
}

extension Float: LuaScalar {
    /// A number rounded to nearest (any integer too); nil for a finite number beyond the range.
    @inline(__always)
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Float? {
        guard type == LUA_TNUMBER else { return nil }
        let double = lua_isinteger(L, index) != 0 ? Double(lua_tointegerx(L, index, nil)) : lua_tonumberx(L, index, nil)
        let float = Float(double)
        return float.isFinite || !double.isFinite ? float : nil
    }

    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error {
        let L = decoder.L
        guard lua_type(L, index) == LUA_TNUMBER else { return decoder.mismatch(Float.self, expected: "Float", at: index, key: key) }
        return decoder.corrupted(key: key, "expected Float, found number \(lua_tonumberx(L, index, nil)) (out of range)")
    }
}

extension LuaScalar where Self: FixedWidthInteger {
    /// A number the type holds exactly: an integer, or a float with an integral value (`3.0`, which
    /// `lua_tointegerx` converts); nil for another type, a fraction or a value out of range.
    @inline(__always)
    static func read(_ L: OpaquePointer, _ index: Int32, type: Int32) -> Self? {
        guard type == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, index, &isInteger)
        return isInteger != 0 ? Self(exactly: value) : nil
    }

    static func failure(at index: Int32, in decoder: LuaValueDecoder, key: (any CodingKey)?) -> any Error {
        let L = decoder.L
        guard lua_type(L, index) == LUA_TNUMBER else { return decoder.mismatch(Self.self, expected: "\(Self.self)", at: index, key: key) }
        let number = lua_tonumberx(L, index, nil)
        let reason =
            lua_isinteger(L, index) != 0 || (number.isFinite && number.rounded(.towardZero) == number)
            ? "out of range" : "not a whole number"
        return decoder.corrupted(key: key, "expected \(Self.self), found \(LuaCoding.describeValue(L, index)) (\(reason))")
    }
}

extension Int: LuaScalar {}
extension Int8: LuaScalar {}
extension Int16: LuaScalar {}
extension Int32: LuaScalar {}
extension Int64: LuaScalar {}
extension UInt: LuaScalar {}
extension UInt8: LuaScalar {}
extension UInt16: LuaScalar {}
extension UInt32: LuaScalar {}
extension UInt64: LuaScalar {}
