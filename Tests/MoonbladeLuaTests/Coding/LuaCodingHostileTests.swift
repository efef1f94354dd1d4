import Foundation
import MoonbladeLua
import Testing

/// Values, tables and `Codable` implementations a careless author or a hostile payload would bring:
/// each either round-trips exactly or fails with a path-naming error, the stack balanced.
@Suite("Lua coding: a hostile corpus")
struct LuaCodingHostileTests {
    // MARK: Integers at their bounds

    @Test func everyIntegerWidthRoundTripsItsBounds() throws {
        #expect(try roundTrip([Int8.min, Int8.max]) == [Int8.min, Int8.max])
        #expect(try roundTrip([Int16.min, Int16.max]) == [Int16.min, Int16.max])
        #expect(try roundTrip([Int32.min, Int32.max]) == [Int32.min, Int32.max])
        #expect(try roundTrip([Int64.min, Int64.max]) == [Int64.min, Int64.max])
        #expect(try roundTrip([Int.min, Int.max]) == [Int.min, Int.max])
        #expect(try roundTrip([UInt8.min, UInt8.max]) == [UInt8.min, UInt8.max])
        #expect(try roundTrip([UInt16.min, UInt16.max]) == [UInt16.min, UInt16.max])
        #expect(try roundTrip([UInt32.min, UInt32.max]) == [UInt32.min, UInt32.max])
        #expect(try roundTrip([UInt64.min, UInt64(Int64.max)]) == [UInt64.min, UInt64(Int64.max)])
        #expect(try roundTrip([UInt(0), UInt(Int64.max)]) == [0, UInt(Int64.max)])
    }

    /// One past each bound, as Lua code would write it, is an out-of-range error naming the position.
    @Test(arguments: [
        ("Int8", "return { 1, -129 }"), ("Int8", "return { 1, 128 }"),
        ("Int16", "return { 1, -32769 }"), ("Int16", "return { 1, 32768 }"),
        ("Int32", "return { 1, -2147483649 }"), ("Int32", "return { 1, 2147483648 }"),
        ("UInt8", "return { 1, -1 }"), ("UInt8", "return { 1, 256 }"),
        ("UInt16", "return { 1, -1 }"), ("UInt16", "return { 1, 65536 }"),
        ("UInt32", "return { 1, -1 }"), ("UInt32", "return { 1, 4294967296 }"),
        ("UInt64", "return { 1, math.mininteger }"), ("UInt", "return { 1, -1 }"),
        ("Int64", "return { 1, 2^63 }"), ("Int64", "return { 1, -2^63 * 2 }"),
        ("Int", "return { 1, 1e300 }"), ("UInt64", "return { 1, 2^64 }"),
    ])
    func onePastAnIntegerBoundIsOutOfRange(type: String, source: String) {
        let message: String?
        switch type {
        case "Int8": message = decodingFailure([Int8].self, source)
        case "Int16": message = decodingFailure([Int16].self, source)
        case "Int32": message = decodingFailure([Int32].self, source)
        case "Int64": message = decodingFailure([Int64].self, source)
        case "Int": message = decodingFailure([Int].self, source)
        case "UInt8": message = decodingFailure([UInt8].self, source)
        case "UInt16": message = decodingFailure([UInt16].self, source)
        case "UInt32": message = decodingFailure([UInt32].self, source)
        case "UInt64": message = decodingFailure([UInt64].self, source)
        default: message = decodingFailure([UInt].self, source)
        }
        #expect(message?.hasPrefix("state[2]: expected \(type), found ") == true, "\(message ?? "nil")")
        #expect(message?.hasSuffix("(out of range)") == true, "\(message ?? "nil")")
    }

    @Test func theSmallestInt64IsExactAsAFloatAndDecodes() throws {
        #expect(try decodeLua(Int64.self, "return -2^63") == Int64.min)
        #expect(try decodeLua(Int.self, "return -0.0") == 0)
        #expect(try decodeLua(UInt8.self, "return 255.0") == 255)
    }

    @Test func nonNumbersAndNonWholeNumbersAreNotIntegers() {
        #expect(decodingFailure(Int.self, "return '3'") == #"state: expected Int, found string "3""#)
        #expect(decodingFailure(Int.self, "return 0/0") == "state: expected Int, found number nan (not a whole number)")
        #expect(decodingFailure(Int.self, "return 3.5") == "state: expected Int, found number 3.5 (not a whole number)")
        #expect(decodingFailure(Int.self, "return math.huge")?.hasPrefix("state: expected Int, found number inf") == true)
        #expect(decodingFailure(Int.self, "return -math.huge")?.hasPrefix("state: expected Int, found number -inf") == true)
        #expect(decodingFailure(Int.self, "return true") == "state: expected Int, found boolean true")
    }

    // MARK: Floats

    @Test func specialDoublesKeepTheirBits() throws {
        let values: [Double] = [
            .nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.ulpOfOne,
        ]
        let back = try roundTrip(values)
        #expect(back.map(\.bitPattern) == values.map(\.bitPattern))
        let floats: [Float] = [.nan, .infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        #expect(try roundTrip(floats).map(\.bitPattern) == floats.map(\.bitPattern))
    }

    @Test func aFloatFieldRejectsFiniteNumbersBeyondItsRangeButNotInfinities() throws {
        #expect(decodingFailure([Float].self, "return { 1e39 }") == "state[1]: expected Float, found number 1e+39 (out of range)")
        #expect(try decodeLua(Float.self, "return math.huge") == .infinity)
        #expect(try decodeLua(Float.self, "return 1e-50") == 0)  // below the smallest subnormal: rounds, as JSONDecoder does
        #expect(try decodeLua(Float.self, "return 16777217") == 16_777_216)  // rounds to nearest
    }

    @Test func anIntegerWithNoExactDoubleIsAnErrorNotARounding() {
        #expect(
            decodingFailure([Double].self, "return { (1 << 53) + 1 }")
                == "state[1]: expected Double, found integer 9007199254740993 (no exact Double)")
    }

    // MARK: Strings

    @Test func oddStringsRoundTripExactly() throws {
        let strings = ["", "\0", "a\0b\0", String(repeating: "x", count: 1 << 20), "é🙂\u{FEFF}", "\u{10FFFF}"]
        #expect(try roundTrip(strings) == strings)
        // Lua sees the bytes (a NUL included) and the length.
        let seen = try encodeThenRun(["a\0b", "é"], "return #state[1], state[1]:byte(2), #state[2]")
        #expect(seen == [.integer(3), .integer(0), .integer(2)])
    }

    @Test func invalidUTF8IsAnErrorAtItsPlaceEvenInsideAnOptional() {
        struct Named: Codable { var name: String? }
        #expect(
            decodingFailure([Named].self, #"return { { name = "ok" }, { name = "\xff\xfe" } }"#)
                == "state[2].name: expected String, found a string that is not valid UTF-8")
        #expect(decodingFailure(String.self, #"return "\xc3""#) == "state: expected String, found a string that is not valid UTF-8")
        // Overlong encodings and surrogates are not UTF-8 either.
        #expect(decodingFailure(String.self, #"return "\xc0\xaf""#) != nil)
        #expect(decodingFailure(String.self, #"return "\xed\xa0\x80""#) != nil)
    }

    @Test func aHugeStringInAnErrorIsShortened() throws {
        let message = try #require(decodingFailure(Int.self, "return string.rep('y', 1 << 20)"))
        #expect(message.hasPrefix(#"state: expected Int, found string "yyyy"#))
        #expect(message.count < 120)
    }

    // MARK: Enums

    enum Priority: String, Codable, Equatable { case low, high = "HIGH" }
    enum Level: Int, Codable, Equatable { case one = 1, big = 9_000_000_000 }
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case pair(Int, String)
        case labelled(_ inner: Int?, name: String)
        case nothing
    }

    @Test func enumsOfEveryCodableFormRoundTrip() throws {
        #expect(try roundTrip([Priority.low, .high]) == [.low, .high])
        #expect(try roundTrip([Level.one, .big]) == [.one, .big])
        let shapes: [Shape] = [.circle(radius: -0.5), .pair(1, "\0"), .labelled(nil, name: ""), .labelled(3, name: "x"), .nothing]
        #expect(try roundTrip(shapes) == shapes)
        #expect(try encodeThenRun(Priority.high, "return state") == [.string("HIGH")])
        #expect(try encodeThenRun(Shape.pair(1, "a"), "return state.pair._0, state.pair._1") == [.integer(1), .string("a")])
    }

    @Test func enumsFailAtTheirPlaceOnUnknownCasesAndOddTables() {
        #expect(decodingFailure([Level].self, "return { 1, 2 }")?.hasPrefix("state[2]: ") == true)
        #expect(decodingFailure([Priority].self, "return { 'high' }")?.hasPrefix("state[1]: ") == true)
        #expect(decodingFailure(Shape.self, "return { circle = { radius = 1 }, nothing = {} }")?.hasPrefix("state: ") == true)
        #expect(decodingFailure(Shape.self, "return { }")?.hasPrefix("state: ") == true)
        #expect(decodingFailure(Shape.self, "return { square = {} }")?.hasPrefix("state: ") == true)
        #expect(decodingFailure(Shape.self, "return { pair = { _0 = 1 } }") == #"state.pair: required key "_1" is missing"#)
        #expect(
            decodingFailure(Shape.self, "return { circle = { radius = 'big' } }")
                == #"state.circle.radius: expected Double, found string "big""#)
    }

    // MARK: Optionals

    struct Doubly: Codable, Equatable {
        var value: Int??
        var list: [Int?]?
    }

    @Test func nestedOptionalsReadAbsentNilAndNullAsNone() throws {
        var encoder = LuaEncoder()
        encoder.nilInSequenceStrategy = .null
        #expect(try roundTrip(Doubly(value: 3, list: [1, nil]), encoder: encoder) == Doubly(value: 3, list: [1, nil]))
        // `.some(nil)` has no Lua form apart from `.none`, as with JSON.
        #expect(try roundTrip(Doubly(value: .some(nil), list: nil)) == Doubly(value: nil, list: nil))
        #expect(try decodeLua(Doubly.self, "return { value = moonblade_null }", vm: vmWithNull()) == Doubly(value: nil, list: nil))
        #expect(decodingFailure(Doubly.self, "return { value = 'x' }") == #"state.value: expected Int, found string "x""#)
    }

    /// A VM whose global `moonblade_null` is the `null` sentinel.
    private func vmWithNull() throws -> LuaVM {
        let vm = try LuaVM()
        vm.stack.pushGlobals()
        vm.stack.pushNull()
        vm.stack.rawSet(table: -2, field: "moonblade_null")
        vm.stack.pop()
        return vm
    }

    // MARK: Classes

    class Base: Codable {
        var id: Int
        init(id: Int) { self.id = id }
    }

    final class Derived: Base, Equatable {
        var label: String
        init(id: Int, label: String) {
            self.label = label
            super.init(id: id)
        }
        enum CodingKeys: String, CodingKey { case label }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            label = try container.decode(String.self, forKey: .label)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try super.encode(to: container.superEncoder())
        }
        static func == (a: Derived, b: Derived) -> Bool { a.id == b.id && a.label == b.label }
    }

    @Test func aSubclassKeepsItsSuperclassUnderSuper() throws {
        let value = Derived(id: 7, label: "x")
        #expect(try roundTrip(value) == value)
        #expect(try roundTrip([value, value]) == [value, value])
        #expect(try encodeThenRun(value, "return state.super.id, state.label") == [.integer(7), .string("x")])
        #expect(decodingFailure(Derived.self, "return { label = 'x' }") == #"state.super: expected a table, found nil"#)
        #expect(
            decodingFailure(Derived.self, "return { label = 'x', super = { id = 'seven' } }")
                == #"state.super.id: expected Int, found string "seven""#)
    }

    // MARK: Dictionaries

    @Test func stringKeyedDictionariesKeepOddKeys() throws {
        let odd = [
            "": 1, "a.b": 2, "with space": 3, "\0": 4, "super": 5, "__index": 6, "1": 7,
            "a very long key of more than sixteen bytes": 8, "é": 9, "x\0y": 10,
        ]
        #expect(try roundTrip(odd) == odd)
        #expect(try encodeThenRun(odd, #"return state["1"], state[1], state["x\0y"]"#) == [.integer(7), .nil, .integer(10)])
    }

    @Test func integerKeyedDictionariesKeepTheirExtremeKeys() throws {
        let keys = [Int.min: "min", Int.max: "max", 0: "zero", -1: "minus"]
        #expect(try roundTrip(keys) == keys)
        #expect(try encodeThenRun(keys, "return state[math.mininteger], state[0]") == [.string("min"), .string("zero")])
        #expect(try decodeLua([Int: String].self, "return { [2.0] = 'two' }") == [2: "two"])  // Lua normalises 2.0 to 2
        #expect(decodingFailure([Int: String].self, "return { ['1'] = 'one' }") == #"state: expected a table with integer keys, found key "1""#)
        #expect(decodingFailure([Int: String].self, "return { [1.5] = 'x' }") == "state: expected a table with integer keys, found key [1.5]")
    }

    enum Color: String, Codable, CodingKeyRepresentable { case red, green }
    enum Rank: Int, Codable, CodingKeyRepresentable { case first = 1, second = 2 }

    @Test func dictionariesKeyedByEnumsUseTheirKeys() throws {
        let colors: [Color: Int] = [.red: 1, .green: 2]
        #expect(try roundTrip(colors) == colors)
        #expect(try encodeThenRun(colors, "return state.red") == [.integer(1)])
        let ranks: [Rank: String] = [.first: "a", .second: "b"]
        #expect(try roundTrip(ranks) == ranks)
        #expect(decodingFailure([Color: Int].self, "return { blue = 1 }")?.hasPrefix("state") == true)
        #expect(decodingFailure([Color: Int].self, "return { red = 'one' }") == #"state.red: expected Int, found string "one""#)
    }

    @Test func dictionariesKeyedByOtherTypesAreAlternatingSequences() throws {
        let value: [Double: String] = [1.5: "a"]
        #expect(try roundTrip(value) == value)
        #expect(try encodeThenRun(value, "return state[1], state[2]") == [.number(1.5), .string("a")])
    }

    @Test func aStringKeyThatIsNotUTF8IsAnErrorNotAnotherKey() {
        let message = decodingFailure([String: Int].self, #"return { ["\xff"] = 1, ["\xfe"] = 2 }"#)
        #expect(message?.contains("UTF-8") == true, "\(message ?? "nil")")
    }

    // MARK: Tables Lua code builds oddly

    @Test func tablesWithBothPartsAreNeitherSequencesNorRecords() {
        #expect(decodingFailure([Int].self, "return { 1, 2, x = 3 }") == #"state: expected a sequence, found key "x""#)
        #expect(decodingFailure(User.self, "return { 'a', name = 'n', age = 1 }") == "state: expected a table with string keys, found key [1]")
        #expect(decodingFailure([Int].self, "return { [1] = 1, [3] = 3 }") == "state: expected a sequence, found a hole at [2]")
        #expect(decodingFailure([Int].self, "return { [0] = 0, 1 }") == "state: expected a sequence, found key [0]")
        #expect(decodingFailure([Int].self, "return { [1] = 1, [2.5] = 2 }") == "state: expected a sequence, found key [2.5]")
        #expect(decodingFailure([Int].self, "return { [true] = 1 }") == "state: expected a sequence, found key [true]")
    }

    @Test func aSequenceWhoseLengthMetamethodLiesIsReadRaw() throws {
        let source = "return setmetatable({ 1, 2, 3 }, { __len = function() return 1 end, __index = function() return 9 end })"
        #expect(try decodeLua([Int].self, source) == [1, 2, 3])
        #expect(
            try decodeLua([Int].self, "return setmetatable({}, { __index = function(_, i) return i end, __len = function() return 5 end })") == [])
    }

    @Test func aCycleThroughADictionaryValueIsAnError() {
        struct Tree: Codable { var children: [String: Tree] }
        #expect(
            decodingFailure(Tree.self, "local t = { children = {} }; t.children.me = t; return t")
                == "state.children.me: found a table that contains itself (a cycle)")
    }

    // MARK: Depth

    final class Link: Codable {
        var next: Link?
        init(next: Link?) { self.next = next }
        var length: Int { 1 + (next?.length ?? 0) }
    }

    @Test func nestingPastTheLimitIsAnErrorBothWaysAndWithinItRoundTrips() throws {
        let deep = "local t = {}; for _ = 1, 600 do t = { next = t } end; return t"
        let message = try #require(decodingFailure(Link.self, deep))
        #expect(message.hasSuffix("nested more than 512 levels deep"), "\(message.suffix(80))")
        var link: Link? = nil
        for _ in 0..<600 { link = Link(next: link) }
        #expect(encodingFailure(link!)?.hasSuffix("nested more than 512 levels deep (a cycle?)") == true)
        var shallow: Link? = nil
        for _ in 0..<500 { shallow = Link(next: shallow) }
        #expect(try roundTrip(shallow!).length == 500)
        // The same from a deeply nested Lua table into arrays of arrays.
        let arrays = "local t = {}; for _ = 1, 600 do t = { t } end; return t"
        #expect(decodingFailure([[[[[[[[Int]]]]]]]].self, arrays)?.hasPrefix("state[1][1][1][1][1][1][1][1]: expected Int") == true)
    }

    // MARK: Codable implementations that use their containers oddly

    enum Field: String, CodingKey { case a, b, c }

    /// Writes through a container, then a single value, then the container again.
    struct SingleAfterContainer: Encodable {
        var unkeyed = false
        func encode(to encoder: any Encoder) throws {
            if unkeyed {
                var list = encoder.unkeyedContainer()
                try list.encode(1)
                var single = encoder.singleValueContainer()
                try single.encode(5)
                try list.encode(2)
            } else {
                var keyed = encoder.container(keyedBy: Field.self)
                try keyed.encode(1, forKey: .a)
                var single = encoder.singleValueContainer()
                try single.encode(5)
                try keyed.encode(2, forKey: .b)
            }
        }
    }

    @Test func aSingleValueAfterAContainerIsAnErrorNotAWriteIntoAScalar() {
        #expect(encodingFailure(SingleAfterContainer())?.hasPrefix("state: ") == true)
        #expect(encodingFailure(["x": SingleAfterContainer(unkeyed: true)])?.hasPrefix("state.x: ") == true)
    }

    /// Encodes two values through one single-value container.
    struct TwoSingleValues: Encodable {
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(["a"])
            try single.encode(3)
        }
    }

    @Test func aSecondSingleValueIsAnError() {
        #expect(encodingFailure([TwoSingleValues()])?.hasPrefix("state[1]: ") == true)
    }

    /// A container asked for after a single value: the container wins, as the last word.
    struct ContainerAfterSingle: Encodable {
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(5)
            var keyed = encoder.container(keyedBy: Field.self)
            try keyed.encode(1, forKey: .a)
        }
    }

    @Test func aContainerAfterASingleValueReplacesIt() throws {
        #expect(try encodeThenRun(ContainerAfterSingle(), "return state.a") == [.integer(1)])
    }

    /// Asks its keyed container twice, reads a key twice, mixes `decodeNil` and `decode`, lists
    /// `allKeys`, and reads a nested unkeyed container with `decodeNil`, then past its end.
    struct OddReader: Decodable, Equatable {
        var a: Int
        var aAgain: Int
        var bIsNil: Bool
        var keys: [String]
        var items: [Int?]
        var pastEnd: String
        var containsCButNotB: Bool

        init(from decoder: any Decoder) throws {
            let first = try decoder.container(keyedBy: Field.self)
            let second = try decoder.container(keyedBy: Field.self)
            a = try first.decode(Int.self, forKey: .a)
            aAgain = try second.decode(Int.self, forKey: .a)
            bIsNil = try first.decodeNil(forKey: .b)
            keys = first.allKeys.map(\.stringValue).sorted()
            containsCButNotB = first.contains(.c) && !first.contains(.b)
            var list = try first.nestedUnkeyedContainer(forKey: .c)
            var items: [Int?] = []
            while !list.isAtEnd {
                if try list.decodeNil() { items.append(nil) } else { items.append(try list.decode(Int.self)) }
            }
            self.items = items
            do {
                _ = try list.decode(Int.self)
                pastEnd = "read"
            } catch let error as DecodingError {
                pastEnd = LuaDecoder.describe(error)
            }
        }
    }

    @Test func oddButLegalReadsSeeTheTableAsItIs() throws {
        var vm = try vmWithNull()
        let value = try decodeLua(OddReader.self, "return { a = 1, c = { 5, moonblade_null, 7 }, zzz = true }", vm: vm)
        #expect(value.a == 1 && value.aAgain == 1 && value.bIsNil && value.containsCButNotB)
        #expect(value.keys == ["a", "c"])  // "zzz" is no key of Field
        #expect(value.items == [5, nil, 7])
        #expect(value.pastEnd == "state.c[4]: expected Int, found the end of a sequence of 3")
        vm = try LuaVM()
        #expect(decodingFailure(OddReader.self, "return { a = 1, c = { 5, 'x' } }", vm: vm) == #"state.c[2]: expected Int, found string "x""#)
        #expect(decodingFailure(OddReader.self, "return { a = 1, c = 'list' }") == #"state.c: expected a sequence, found string "list""#)
        #expect(decodingFailure(OddReader.self, "return { a = 1 }") == #"state: required key "c" is missing"#)
    }

    /// Reads its parent's part from `superDecoder()` of an unkeyed container, and a keyed field's
    /// super decoder by key.
    struct SuperReader: Decodable, Equatable {
        var first: Int
        var byKey: String
        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            first = try Int(from: try list.superDecoder())
            let keyed = try list.nestedContainer(keyedBy: Field.self)
            byKey = try String(from: try keyed.superDecoder(forKey: .b))
        }
    }

    @Test func superDecodersReadTheirPlaceAndNameIt() throws {
        #expect(try decodeLua(SuperReader.self, "return { 4, { b = 'x' } }").byKey == "x")
        #expect(decodingFailure(SuperReader.self, "return { 4, { } }") == "state[2].b: expected String, found nil")
        #expect(decodingFailure(SuperReader.self, "return { }") == "state[1]: found the end of a sequence of 0")
    }

    @Test func aKeyedReadOfAnythingButATableNamesWhatWasFound() {
        #expect(decodingFailure(User.self, "return 'user'") == #"state: expected a table, found string "user""#)
        #expect(decodingFailure([User].self, "return { print }") == "state[1]: expected a table, found function")
        #expect(decodingFailure([User].self, "return { coroutine.create(print) }") == "state[1]: expected a table, found coroutine")
    }

    // MARK: Dates and data under each strategy, fed garbage

    struct Stamp: Codable, Equatable { var at: Date }
    struct Blob: Codable, Equatable { var bytes: Data }

    @Test func datesUnderEachStrategyRoundTripAndRefuseGarbageAtTheirPath() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        for strategy in [LuaEncoder.DateEncodingStrategy.deferredToDate, .secondsSince1970, .millisecondsSince1970] {
            var encoder = LuaEncoder()
            encoder.dateEncodingStrategy = strategy
            var decoder = LuaDecoder()
            switch strategy {
            case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
            case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
            default: break
            }
            #expect(try roundTrip(Stamp(at: date), encoder: encoder, decoder: decoder) == Stamp(at: date))
            #expect(decodingFailure(Stamp.self, "return { at = 'noon' }", decoder: decoder) == #"state.at: expected Double, found string "noon""#)
        }
        var iso = LuaDecoder()
        iso.dateDecodingStrategy = .iso8601
        #expect(try decodeLua(Stamp.self, "return { at = '2024-05-01T12:30:00Z' }", decoder: iso).at.timeIntervalSince1970 == 1_714_566_600)
        #expect(
            decodingFailure([Stamp].self, "return { { at = 'yesterday' } }", decoder: iso)
                == #"state[1].at: expected an ISO 8601 date, found string "yesterday""#)
        #expect(decodingFailure(Stamp.self, "return { at = 5 }", decoder: iso) == "state.at: expected String, found integer 5")
    }

    struct Refused: Error {}

    @Test func customStrategiesThatThrowLeaveTheStackAsItWas() throws {
        var encoder = LuaEncoder()
        encoder.dateEncodingStrategy = .custom { _, encoder in
            var keyed = encoder.container(keyedBy: Field.self)
            try keyed.encode(1, forKey: .a)
            var nested = keyed.nestedUnkeyedContainer(forKey: .b)
            try nested.encode("half")
            throw Refused()
        }
        let vm = try LuaVM()
        let top = vm.stack.top
        #expect(throws: Refused.self) { try encoder.push([Stamp(at: Date())], onto: vm.stack) }
        #expect(vm.stack.top == top)
        var decoder = LuaDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let keyed = try decoder.container(keyedBy: Field.self)
            _ = try keyed.nestedUnkeyedContainer(forKey: .c)
            throw Refused()
        }
        #expect(throws: Refused.self) { try decodeLua(Stamp.self, "return { at = { c = { 1 } } }", decoder: decoder, vm: vm) }
        #expect(vm.stack.top == top)
        #expect(try roundTrip(Stamp(at: Date(timeIntervalSinceReferenceDate: 3)), vm: vm) == Stamp(at: Date(timeIntervalSinceReferenceDate: 3)))
    }

    /// `.custom` strategies: the closures get an encoder and decoder at the value's place, and their
    /// errors name it.
    @Test func dataUnderCustomStrategiesGoesThroughTheClosures() throws {
        var encoder = LuaEncoder()
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(data.map { String($0, radix: 16) }.joined(separator: ":"))
        }
        var decoder = LuaDecoder()
        decoder.dataDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let bytes = text.split(separator: ":").compactMap { UInt8($0, radix: 16) }
            guard bytes.count == text.split(separator: ":").count else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not hex bytes"))
            }
            return Data(bytes)
        }
        #expect(try encodeThenRun(Blob(bytes: Data([1, 255])), encoder: encoder, "return state.bytes") == ["1:ff"])
        #expect(try roundTrip(Blob(bytes: Data([0, 16, 255])), encoder: encoder, decoder: decoder) == Blob(bytes: Data([0, 16, 255])))
        #expect(decodingFailure(Blob.self, "return { bytes = 'zz' }", decoder: decoder) == "state.bytes: not hex bytes")
    }

    /// A value whose `encode(to:)` encodes nothing is an empty table, as `JSONEncoder` writes `{}`.
    @Test func aValueThatEncodesNothingIsAnEmptyTable() throws {
        struct Nothing: Codable, Equatable {
            init() {}
            init(from decoder: any Decoder) throws {}
            func encode(to encoder: any Encoder) throws {}
        }
        struct Holder: Codable, Equatable { var nothing = Nothing(), after = 1 }
        #expect(try encodeThenRun(Holder(), "return type(state.nothing), next(state.nothing), state.after") == ["table", .nil, 1])
        #expect(try roundTrip(Holder()) == Holder())
    }

    @Test func dataUnderEachStrategyRoundTripsEveryByteAndRefusesGarbage() throws {
        let bytes = Data((0...255).map(UInt8.init) + [0, 0])
        for (encoding, decoding) in [
            (LuaEncoder.DataEncodingStrategy.base64, LuaDecoder.DataDecodingStrategy.base64),
            (.luaString, .luaString), (.deferredToData, .deferredToData),
        ] {
            var encoder = LuaEncoder()
            encoder.dataEncodingStrategy = encoding
            var decoder = LuaDecoder()
            decoder.dataDecodingStrategy = decoding
            #expect(try roundTrip(Blob(bytes: bytes), encoder: encoder, decoder: decoder) == Blob(bytes: bytes))
            #expect(try roundTrip(Blob(bytes: Data()), encoder: encoder, decoder: decoder) == Blob(bytes: Data()))
        }
        #expect(
            decodingFailure(Blob.self, "return { bytes = '!!not base64!!' }")?.hasPrefix("state.bytes: expected base64-encoded Data, found string")
                == true)
        #expect(decodingFailure(Blob.self, "return { bytes = 12 }") == "state.bytes: expected base64-encoded Data, found integer 12")
        var strings = LuaDecoder()
        strings.dataDecodingStrategy = .luaString
        #expect(
            decodingFailure(Blob.self, "return { bytes = 12 }", decoder: strings)
                == "state.bytes: expected Data (a string of bytes), found integer 12")
        var raw = LuaDecoder()
        raw.dataDecodingStrategy = .deferredToData
        #expect(
            decodingFailure(Blob.self, "return { bytes = { 1, 256 } }", decoder: raw)
                == "state.bytes[2]: expected UInt8, found integer 256 (out of range)")
        #expect(
            decodingFailure(Blob.self, "return { bytes = { 1, -1 } }", decoder: raw)
                == "state.bytes[2]: expected UInt8, found integer -1 (out of range)")
    }

    // MARK: Coders that throw halfway

    /// Writes some fields and a nested container, then throws its own error.
    struct HalfEncoded: Encodable {
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: Field.self)
            try keyed.encode("x", forKey: .a)
            var list = keyed.nestedUnkeyedContainer(forKey: .b)
            var inner = list.nestedContainer(keyedBy: Field.self)
            try inner.encode(true, forKey: .c)
            _ = keyed.superEncoder()
            throw Refused()
        }
    }

    /// Reads some fields, leaves nested containers open, then throws its own error.
    struct HalfDecoded: Decodable {
        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: Field.self)
            _ = try keyed.decode(String.self, forKey: .a)
            var list = try keyed.nestedUnkeyedContainer(forKey: .b)
            _ = try list.nestedContainer(keyedBy: Field.self)
            _ = try keyed.superDecoder()
            throw Refused()
        }
    }

    @Test func ownErrorsThrownHalfwayComeThroughAndLeaveTheStackAndVMWhole() throws {
        let vm = try LuaVM()
        let top = vm.stack.top
        for _ in 0..<3 {
            #expect(throws: Refused.self) { try LuaEncoder().push(["k": [HalfEncoded()]], onto: vm.stack) }
            #expect(vm.stack.top == top)
            #expect(throws: Refused.self) {
                try decodeLua([HalfDecoded].self, "return { { a = 'x', b = { { c = true } } } }", vm: vm)
            }
            #expect(vm.stack.top == top)
        }
        let state = TodoState(todos: [Todo(title: "t", done: true, tags: ["a"])], owner: User(name: "n", age: 1))
        #expect(try roundTrip(state, vm: vm) == state)
    }
}
