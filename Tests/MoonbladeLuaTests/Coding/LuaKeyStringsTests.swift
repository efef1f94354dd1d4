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
        var names = ["", "a", "a\0", "\0", "a\0\0", "abcdefgh", "abcdefgi", "abcdefghX", "abcdefghY",
                     "0123456789abcdef", "0123456789abcdeg", "0123456789abcdefg", "0123456789abcdefh",
                     "é", "👍"]
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

    @Test func theKeptStringsDoNotOutliveADecodeOrStayOnTheStack() throws {
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
}
