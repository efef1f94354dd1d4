import MoonbladeLua
import Testing

/// Every scalar type through every container: a keyed field, an optional field (`encodeIfPresent`,
/// `decodeIfPresent`), an unkeyed container's item and a single value (an enum's raw value). The
/// coders write each reader and writer out per type, so each is checked: values at the ends of their
/// ranges come back exactly, and a value out of range fails at its own place.
@Suite("LuaEncoder and LuaDecoder: every scalar type in every container")
struct LuaCodingEveryScalarTests {
    @Test func keyedAndOptionalFieldsRoundTrip() throws {
        let extremes = EveryScalar.extremes
        #expect(try roundTrip(extremes) == extremes)
        var absent = extremes
        absent.removeOptionals()
        #expect(try roundTrip(absent) == absent)
        let lows = EveryScalar.lows
        #expect(try roundTrip(lows) == lows)
    }

    @Test func unkeyedItemsRoundTrip() throws {
        for row in [ScalarRow(EveryScalar.extremes), ScalarRow(EveryScalar.lows)] {
            #expect(try roundTrip(row) == row)
        }
        #expect(try encodeThenRun(ScalarRow(EveryScalar.extremes), "return #state, state[1], state[14]") == [14, "text", .integer(Int64.max)])
    }

    /// `encodeNil` and `decodeNil` in a sequence: refused by default, `null` with `.null`.
    @Test func aNilItemIsNullWhenTheEncoderSaysSo() throws {
        #expect(encodingFailure(NilRow()) == "state[2]: a Lua sequence cannot hold nil (set nilInSequenceStrategy to .null to encode it as null)")
        var encoder = LuaEncoder()
        encoder.nilInSequenceStrategy = .null
        #expect(try roundTrip(NilRow(), encoder: encoder) == NilRow())
        #expect(decodingFailure(NilRow.self, "return { 1, 2, 3 }") == "state[2]: expected the nil item")
    }

    @Test func singleValuesRoundTrip() throws {
        let raw = RawValues()
        #expect(try roundTrip(raw) == raw)
        #expect(try encodeThenRun(raw, "return state.int8s[1], state.uint64s[1], state.floats[1]") == [-128, .integer(Int64.max), 0.5])
    }

    /// A value that does not fit its type fails naming where it is, whichever container reads it.
    @Test(arguments: [
        ("return { int8 = 128 }", "state.int8: expected Int8, found integer 128 (out of range)"),
        ("return { optionalUInt16 = -1 }", "state.optionalUInt16: expected UInt16, found integer -1 (out of range)"),
        ("return { optionalFloat = 1e300 }", "state.optionalFloat: expected Float, found number 1e+300 (out of range)"),
        ("return { optionalInt32 = 2.5 }", "state.optionalInt32: expected Int32, found number 2.5 (not a whole number)"),
        ("return { optionalBool = 0 }", "state.optionalBool: expected Bool, found integer 0"),
        ("return { optionalUInt = -5 }", "state.optionalUInt: expected UInt, found integer -5 (out of range)"),
    ])
    func aFieldOutOfRangeNamesItsKey(source: String, message: String) {
        #expect(decodingFailure(EveryScalar.self, EveryScalar.luaSource(replacing: source)) == message)
    }

    @Test(arguments: [
        (1, "true", "state[1]: expected String, found boolean true"),
        (3, "1e40", "state[3]: expected Float, found number 1e+40 (out of range)"),
        (5, "-129", "state[5]: expected Int8, found integer -129 (out of range)"),
        (6, "40000", "state[6]: expected Int16, found integer 40000 (out of range)"),
        (7, "1 << 31", "state[7]: expected Int32, found integer 2147483648 (out of range)"),
        (9, "256", "state[9]: expected UInt8, found integer 256 (out of range)"),
        (10, "-1", "state[10]: expected UInt, found integer -1 (out of range)"),
        (11, "65536", "state[11]: expected UInt16, found integer 65536 (out of range)"),
        (12, "-1", "state[12]: expected UInt32, found integer -1 (out of range)"),
        (13, "0.5", "state[13]: expected Int, found number 0.5 (not a whole number)"),
        (14, "0.5", "state[14]: expected UInt64, found number 0.5 (not a whole number)"),
    ])
    func anItemOutOfRangeNamesItsPosition(position: Int, value: String, message: String) throws {
        let source = "local row = \(ScalarRow.luaSource) row[\(position)] = \(value) return row"
        #expect(decodingFailure(ScalarRow.self, source) == message)
    }

    @Test(arguments: [
        ("int8s", "{ 200 }", "state.int8s[1]: expected Int8, found integer 200 (out of range)"),
        ("uint8s", "{ 0, 300 }", "state.uint8s[2]: expected UInt8, found integer 300 (out of range)"),
        ("int16s", "{ -40000 }", "state.int16s[1]: expected Int16, found integer -40000 (out of range)"),
        ("uint16s", "{ 'x' }", #"state.uint16s[1]: expected UInt16, found string "x""#),
        ("uints", "{ -1 }", "state.uints[1]: expected UInt, found integer -1 (out of range)"),
        ("floats", "{ 1e39 }", "state.floats[1]: expected Float, found number 1e+39 (out of range)"),
    ])
    func aSingleValueOutOfRangeNamesItsPlace(field: String, value: String, message: String) {
        let source = "local raw = \(RawValues.luaSource) raw.\(field) = \(value) return raw"
        #expect(decodingFailure(RawValues.self, source) == message)
    }

    /// A raw value in range that no case has fails as the enum's own initializer says, at its place.
    @Test func aRawValueNoCaseHasFailsAtItsPlace() {
        let source = "local raw = \(RawValues.luaSource) raw.uint32s = { 4294967295, 7 } return raw"
        let failure = decodingFailure(RawValues.self, source)
        #expect(failure?.hasPrefix("state.uint32s[2]:") == true, "\(failure ?? "no failure")")
        #expect(failure?.contains("7") == true, "\(failure ?? "no failure")")
    }

    /// An unsigned value past Lua's largest integer cannot be pushed, in any container.
    @Test func anUnsignedValuePastLuasLargestIntegerFailsAtItsPlace() {
        let tooLarge = UInt64(Int64.max) + 1
        var keyed = EveryScalar.extremes
        keyed.uint64 = tooLarge
        #expect(encodingFailure(keyed)?.hasPrefix("state.uint64: ") == true)
        keyed = EveryScalar.extremes
        keyed.optionalUInt = UInt(tooLarge)
        #expect(encodingFailure(keyed)?.hasPrefix("state.optionalUInt: ") == true)
        var row = ScalarRow(EveryScalar.extremes)
        row.values.uint64 = tooLarge
        #expect(encodingFailure(row)?.hasPrefix("state[14]: ") == true)
        var raw = RawValues()
        raw.uint64s = [.low, .beyondLua]
        #expect(encodingFailure(raw) == "state.uint64s[2]: \(tooLarge) does not fit in a Lua integer (the largest is \(Int64.max))")
    }
}

/// One field of each scalar type and an optional of each.
private struct EveryScalar: Codable, Equatable {
    var bool = true, string = "text", double = -0.25, float: Float = 0.5
    var int = 0, int8: Int8 = 0, int16: Int16 = 0, int32: Int32 = 0, int64: Int64 = 0
    var uint: UInt = 0, uint8: UInt8 = 0, uint16: UInt16 = 0, uint32: UInt32 = 0, uint64: UInt64 = 0
    var optionalBool: Bool? = false, optionalString: String? = "", optionalDouble: Double? = 1e300
    var optionalFloat: Float? = -3.0e38, optionalInt: Int? = -1, optionalInt8: Int8? = -1
    var optionalInt16: Int16? = -1, optionalInt32: Int32? = -1, optionalInt64: Int64? = -1
    var optionalUInt: UInt? = 1, optionalUInt8: UInt8? = 1, optionalUInt16: UInt16? = 1
    var optionalUInt32: UInt32? = 1, optionalUInt64: UInt64? = 1

    /// Each integer at its largest (unsigned ones at Lua's largest integer where theirs is larger).
    static var extremes: Self {
        var value = Self()
        (value.int, value.int8, value.int16, value.int32, value.int64) = (.max, .max, .max, .max, .max)
        (value.uint, value.uint8, value.uint16, value.uint32) = (UInt(Int64.max), .max, .max, .max)
        value.uint64 = UInt64(Int64.max)
        (value.optionalInt8, value.optionalInt16, value.optionalInt32) = (.max, .max, .max)
        (value.optionalUInt8, value.optionalUInt16, value.optionalUInt32) = (.max, .max, .max)
        (value.optionalUInt, value.optionalUInt64) = (UInt(Int64.max), UInt64(Int64.max))
        (value.optionalInt, value.optionalInt64) = (.max, .max)
        return value
    }

    /// Each signed integer at its smallest, floats at their smallest normal magnitude.
    static var lows: Self {
        var value = Self()
        (value.int, value.int8, value.int16, value.int32, value.int64) = (.min, .min, .min, .min, .min)
        (value.optionalInt8, value.optionalInt16, value.optionalInt32, value.optionalInt64) = (.min, .min, .min, .min)
        (value.double, value.float, value.optionalFloat) = (-.leastNormalMagnitude, .leastNormalMagnitude, -.leastNormalMagnitude)
        return value
    }

    mutating func removeOptionals() {
        (optionalBool, optionalString, optionalDouble, optionalFloat, optionalInt) = (nil, nil, nil, nil, nil)
        (optionalInt8, optionalInt16, optionalInt32, optionalInt64) = (nil, nil, nil, nil)
        (optionalUInt, optionalUInt8, optionalUInt16, optionalUInt32, optionalUInt64) = (nil, nil, nil, nil, nil)
    }

    /// A Lua chunk returning the defaults with the fields `replacing` returns put over them.
    static func luaSource(replacing fields: String) -> String {
        """
        local value = { bool = true, string = "text", double = -0.25, float = 0.5, int = 0, int8 = 0, int16 = 0,
          int32 = 0, int64 = 0, uint = 0, uint8 = 0, uint16 = 0, uint32 = 0, uint64 = 0 }
        for k, v in pairs((function() \(fields) end)()) do value[k] = v end
        return value
        """
    }
}

/// The non-optional fields of an ``EveryScalar`` as one unkeyed sequence, written and read type by type.
private struct ScalarRow: Codable, Equatable {
    var values: EveryScalar

    init(_ values: EveryScalar) { self.values = values }

    /// A Lua sequence this type reads.
    static let luaSource = "{ 'text', true, 0.5, -0.25, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }"

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        var values = EveryScalar()
        values.string = try list.decode(String.self)
        values.bool = try list.decode(Bool.self)
        values.float = try list.decode(Float.self)
        values.double = try list.decode(Double.self)
        values.int8 = try list.decode(Int8.self)
        values.int16 = try list.decode(Int16.self)
        values.int32 = try list.decode(Int32.self)
        values.int64 = try list.decode(Int64.self)
        values.uint8 = try list.decode(UInt8.self)
        values.uint = try list.decode(UInt.self)
        values.uint16 = try list.decode(UInt16.self)
        values.uint32 = try list.decode(UInt32.self)
        values.int = try list.decode(Int.self)
        values.uint64 = try list.decode(UInt64.self)
        self.values = values
    }

    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode(values.string)
        try list.encode(values.bool)
        try list.encode(values.float)
        try list.encode(values.double)
        try list.encode(values.int8)
        try list.encode(values.int16)
        try list.encode(values.int32)
        try list.encode(values.int64)
        try list.encode(values.uint8)
        try list.encode(values.uint)
        try list.encode(values.uint16)
        try list.encode(values.uint32)
        try list.encode(values.int)
        try list.encode(values.uint64)
    }

    static func == (a: Self, b: Self) -> Bool {
        var optionalsLeftOut = b.values
        (optionalsLeftOut.optionalBool, optionalsLeftOut.optionalString) = (a.values.optionalBool, a.values.optionalString)
        (optionalsLeftOut.optionalDouble, optionalsLeftOut.optionalFloat) = (a.values.optionalDouble, a.values.optionalFloat)
        (optionalsLeftOut.optionalInt, optionalsLeftOut.optionalInt8) = (a.values.optionalInt, a.values.optionalInt8)
        (optionalsLeftOut.optionalInt16, optionalsLeftOut.optionalInt32) = (a.values.optionalInt16, a.values.optionalInt32)
        (optionalsLeftOut.optionalInt64, optionalsLeftOut.optionalUInt) = (a.values.optionalInt64, a.values.optionalUInt)
        (optionalsLeftOut.optionalUInt8, optionalsLeftOut.optionalUInt16) = (a.values.optionalUInt8, a.values.optionalUInt16)
        (optionalsLeftOut.optionalUInt32, optionalsLeftOut.optionalUInt64) = (a.values.optionalUInt32, a.values.optionalUInt64)
        return a.values == optionalsLeftOut
    }
}

/// `[1, nil, 2]` written with `encodeNil` and read with `decodeNil`.
private struct NilRow: Codable, Equatable {
    init() {}

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        _ = try list.decode(Int.self)
        guard try list.decodeNil() else {
            throw DecodingError.dataCorruptedError(in: list, debugDescription: "expected the nil item")
        }
        _ = try list.decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode(1)
        try list.encodeNil()
        try list.encode(2)
    }
}

/// Arrays of enums of each raw type: each enum is a single value of its raw type.
private struct RawValues: Codable, Equatable {
    enum Int8Case: Int8, Codable { case low = -128, high = 127 }
    enum Int16Case: Int16, Codable { case low = -32768, high = 32767 }
    enum Int32Case: Int32, Codable { case low = -2_147_483_648, high = 2_147_483_647 }
    enum Int64Case: Int64, Codable { case low = -9_223_372_036_854_775_808, high = 9_223_372_036_854_775_807 }
    enum UIntCase: UInt, Codable { case low = 0, high = 9_223_372_036_854_775_807 }
    enum UInt8Case: UInt8, Codable { case low = 0, high = 255 }
    enum UInt16Case: UInt16, Codable { case low = 0, high = 65535 }
    enum UInt32Case: UInt32, Codable { case low = 0, high = 4_294_967_295 }
    enum UInt64Case: UInt64, Codable { case low = 0, high = 9_223_372_036_854_775_807, beyondLua = 9_223_372_036_854_775_808 }
    enum FloatCase: Float, Codable { case half = 0.5, large = 3.0e38 }

    var int8s: [Int8Case] = [.low, .high], int16s: [Int16Case] = [.low, .high], int32s: [Int32Case] = [.low, .high]
    var int64s: [Int64Case] = [.low, .high], uints: [UIntCase] = [.low, .high], uint8s: [UInt8Case] = [.low, .high]
    var uint16s: [UInt16Case] = [.low, .high], uint32s: [UInt32Case] = [.low, .high]
    var uint64s: [UInt64Case] = [.high, .low], floats: [FloatCase] = [.half, .large]

    /// The defaults as a Lua table.
    static let luaSource = """
        { int8s = { -128, 127 }, int16s = { -32768, 32767 }, int32s = { -2147483648, 2147483647 },
          int64s = { math.mininteger, math.maxinteger }, uints = { 0, math.maxinteger }, uint8s = { 0, 255 },
          uint16s = { 0, 65535 }, uint32s = { 0, 4294967295 }, uint64s = { math.maxinteger, 0 }, floats = { 0.5, 3.0e38 } }
        """
}
