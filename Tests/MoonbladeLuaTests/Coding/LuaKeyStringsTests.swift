import Foundation
import MoonbladeLua
import Testing

/// The coders keep the Lua strings of the field names they meet (names of up to 16 bytes, the first
/// 32 of them) and push those instead of making the string again: names that differ only in their
/// length, their last byte or past the eighth byte must stay apart, and names past the 32nd still work.
@Suite("Field names pushed from the coders' kept strings")
struct LuaKeyStringsTests {
    /// Names that a careless byte comparison would confuse, and more of them than are kept.
    static let names: [String] = {
        var names = [
            "", "a", "a\0", "\0", "a\0\0", "abcdefgh", "abcdefgi", "abcdefghX", "abcdefghY",
            "0123456789abcdef", "0123456789abcdeg", "0123456789abcdefg", "0123456789abcdefh",
            "é", "👍",
        ]
        names += (0..<60).map { "field\($0)" }
        return names
    }()

    @Test func aDictionaryWithManyCloseNamesRoundTripsAndLuaSeesEveryName() throws {
        let dictionary = Dictionary(uniqueKeysWithValues: Self.names.enumerated().map { ($1, $0) })
        #expect(try roundTrip(dictionary) == dictionary)
        let results = try encodeThenRun(
            dictionary,
            """
            local n = 0 for _ in pairs(state) do n = n + 1 end
            return n, state["a"], state["a\\0"], state["0123456789abcdefg"], state["field59"], state[""]
            """)
        let index = { (name: String) in LuaValue.integer(Int64(Self.names.firstIndex(of: name)!)) }
        #expect(results == [.integer(Int64(Self.names.count)), index("a"), index("a\0"), index("0123456789abcdefg"), index("field59"), index("")])
    }

    @Test func structFieldsOfEveryLengthReadAndWriteTheirOwnKeys() throws {
        struct Fields: Codable, Equatable {
            var short: Int
            var exactlySixteen16: Int
            var seventeenCharsXYZ: Int
            var shortX: Int
        }
        let value = Fields(short: 1, exactlySixteen16: 2, seventeenCharsXYZ: 3, shortX: 4)
        #expect(try roundTrip([value, value]) == [value, value])
        let results = try encodeThenRun(value, "return state.short, state.exactlySixteen16, state.seventeenCharsXYZ, state.shortX")
        #expect(results == [.integer(1), .integer(2), .integer(3), .integer(4)])
        #expect(
            decodingFailure(Fields.self, "return { short = 1, exactlySixteen16 = 2, seventeenCharsXYZ = 3 }")
                == #"state: required key "shortX" is missing"#)
    }

    /// The kept strings live in the registry: each round leaves the stack as it found it.
    @Test func pushesAndDecodesLeaveNoKeptStringOnTheStack() throws {
        let vm = try LuaVM()
        struct Pair: Codable, Equatable { var left: String; var right: String }
        for round in 0..<3 {
            let pair = Pair(left: "l\(round)", right: "r\(round)")
            try expectBalanced(vm) {
                try LuaEncoder().push(pair, onto: vm.stack)
                #expect(try LuaDecoder().decode(Pair.self, from: vm.stack, at: -1) == pair)
                vm.stack.pop()
            }
        }
    }

    @Test func keyValuesOfDifferentTypesWithTheSameTagKeepTheirOwnNames() throws {
        struct Left: Codable, Equatable { var x: Int }
        struct Right: Codable, Equatable { var y: Int }
        struct Named: Codable, Equatable {
            var value: Int
            enum CodingKeys: String, CodingKey { case value = "the value" }
        }
        struct Both: Codable, Equatable { var left: Left; var right: Right; var named: Named }
        let both = Both(left: Left(x: 1), right: Right(y: 2), named: Named(value: 3))
        #expect(try roundTrip([both, both]) == [both, both])
        let results = try encodeThenRun(both, "return state.left.x, state.right.y, state.named['the value'], state.left.y")
        #expect(results == [.integer(1), .integer(2), .integer(3), .nil])
        #expect(
            decodingFailure(Both.self, "return { left = { y = 1 }, right = { y = 2 }, named = { value = 3 } }")
                == #"state.left: required key "x" is missing"#)
    }

    @Test func moreKeyValuesThanAreRememberedStillWork() throws {
        struct Wide: Codable, Equatable {
            enum Field: Int, CodingKey, CaseIterable {
                case c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27,
                    c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39
            }
            var values: [Int]
            init(values: [Int]) { self.values = values }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Field.self)
                values = try Field.allCases.map { try container.decode(Int.self, forKey: $0) }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Field.self)
                for (field, value) in zip(Field.allCases, values) { try container.encode(value, forKey: field) }
            }
        }
        let wide = Wide(values: Array(100..<140))
        #expect(try roundTrip([wide, wide]) == [wide, wide])
        #expect(try encodeThenRun(wide, "return state.c0, state.c17, state.c39") == [.integer(100), .integer(117), .integer(139)])
    }
    @Test func namesKeptForOneValueAreNotUsedForTheNext() throws {
        struct A: Codable, Equatable { var x: Int }
        struct B: Codable, Equatable { var y: Int; var x: Int }
        let vm = try LuaVM()
        for round in 0..<4 {
            try expectBalanced(vm) {
                if round.isMultiple(of: 2) {
                    try LuaEncoder().push(A(x: round), onto: vm.stack)
                    #expect(try LuaDecoder().decode([String: Int].self, from: vm.stack, at: -1) == ["x": round])
                    #expect(try LuaDecoder().decode(A.self, from: vm.stack, at: -1) == A(x: round))
                } else {
                    try LuaEncoder().push(B(y: round, x: -round), onto: vm.stack)
                    #expect(try LuaDecoder().decode([String: Int].self, from: vm.stack, at: -1) == ["y": round, "x": -round])
                    #expect(try LuaDecoder().decode(B.self, from: vm.stack, at: -1) == B(y: round, x: -round))
                }
                vm.stack.pop()
            }
        }
    }
}
