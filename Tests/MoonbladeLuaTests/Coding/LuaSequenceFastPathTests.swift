import Foundation
import MoonbladeLua
import Testing

/// Arrays are read and written in one loop (`LuaSequenceDecodable`, `LuaSequenceEncodable`), other
/// collections through their `Codable` conformance and an unkeyed container. `ContiguousArray` takes
/// the `Codable` path, so every case here checks that both paths give the same value or error.
@Suite("Arrays in one loop: the same values and errors as the Codable path")
struct LuaSequenceFastPathTests {
    @Test(arguments: [
        ("return { 1, 'x', 3 }", #"state[2]: expected Int, found string "x""#),
        ("return { 1, nil, 3 }", "state: expected a sequence, found a hole at [2]"),
        ("return { 1, 2, n = 3 }", #"state: expected a sequence, found key "n""#),
        ("return { [0] = 0, 1 }", "state: expected a sequence, found key [0]"),
        ("return { 1, 2.5 }", "state[2]: expected Int, found number 2.5 (not a whole number)"),
        ("return 'list'", #"state: expected a sequence, found string "list""#),
    ])
    func readingAnArrayFailsAsItsUnkeyedContainerWould(source: String, message: String) {
        #expect(decodingFailure([Int].self, source) == message)
        #expect(decodingFailure(ContiguousArray<Int>.self, source) == message)
    }

    @Test func errorsInsideNestedArraysNameEveryPosition() {
        let source = "return { { 1 }, { 2, 'x' } }"
        #expect(decodingFailure([[Int]].self, source) == #"state[2][2]: expected Int, found string "x""#)
        #expect(decodingFailure(ContiguousArray<ContiguousArray<Int>>.self, source) == #"state[2][2]: expected Int, found string "x""#)
        let items = "return { items = { { title = 'a', done = true, tags = {} }, { title = 'b', done = 'no', tags = {} } } }"
        struct Items: Decodable { var items: [Todo] }
        #expect(decodingFailure(Items.self, items) == #"state.items[2].done: expected Bool, found string "no""#)
    }

    @Test func anArrayThatContainsItselfIsACycle() {
        struct Nest: Decodable { var nest: [Nest] }
        #expect(
            decodingFailure([Nest].self, "local t = {} t[1] = { nest = t } return t")
                == "state[1].nest: found a table that contains itself (a cycle)")
    }

    @Test func itemsSeeTheirOneBasedPathInTheirDecoder() throws {
        struct Recorder: Decodable {
            var path: String
            init(from decoder: any Decoder) throws {
                path = decoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            }
        }
        struct Outer: Decodable { var list: [Recorder] }
        let outer = try decodeLua(Outer.self, "return { list = { {}, {} } }")
        #expect(outer.list.map(\.path) == ["list.[1]", "list.[2]"])
    }

    @Test func optionalArraysAndOptionalItemsStillRead() throws {
        struct Holder: Decodable, Equatable { var list: [Int]? }
        #expect(try decodeLua(Holder.self, "return { list = { 1, 2 } }") == Holder(list: [1, 2]))
        #expect(try decodeLua(Holder.self, "return {}") == Holder(list: nil))
        let vm = try LuaVM()
        vm.stack.pushNull()
        vm.stack.pushGlobals()
        vm.stack.insert(at: -2)
        vm.stack.rawSet(table: -2, field: "null")
        vm.stack.pop()
        #expect(try decodeLua([Int?].self, "return { 1, null, 3 }", vm: vm) == [1, nil, 3])
    }

    @Test func anArrayReadThroughASingleValueContainerTakesTheSamePath() throws {
        struct Wrapped: Decodable, Equatable {
            var values: [String]
            init(values: [String]) { self.values = values }
            init(from decoder: any Decoder) throws { values = try decoder.singleValueContainer().decode([String].self) }
        }
        #expect(try decodeLua(Wrapped.self, "return { 'a', 'b' }") == Wrapped(values: ["a", "b"]))
        #expect(decodingFailure(Wrapped.self, "return { 'a', 2 }") == "state[2]: expected String, found integer 2")
    }

    @Test func writingAnArrayFailsAsItsUnkeyedContainerWould() {
        let tooLarge: [UInt64] = [1, UInt64.max]
        let message = "state[2]: \(UInt64.max) does not fit in a Lua integer (the largest is \(Int64.max))"
        #expect(encodingFailure(tooLarge) == message)
        #expect(encodingFailure(ContiguousArray(tooLarge)) == message)
        let holes: [[Int?]] = [[1], [2, nil]]
        let nilMessage = "state[2][2]: a Lua sequence cannot hold nil (set nilInSequenceStrategy to .null to encode it as null)"
        #expect(encodingFailure(holes) == nilMessage)
        #expect(encodingFailure(ContiguousArray(holes.map(ContiguousArray.init))) == nilMessage)
    }

    @Test func writtenArraysAreSequencesOfTheirLength() throws {
        let results = try encodeThenRun(
            [[1, 2, 3], [], [4]],
            """
            return #state, #state[1], #state[2], #state[3], state[1][3], math.type(state[3][1]),
              getmetatable(state[2]) == nil
            """)
        #expect(results == [.integer(3), .integer(3), .integer(0), .integer(1), .integer(3), .string("integer"), .boolean(true)])
        #expect(try roundTrip([["a"], [], ["b", "c"]]) == [["a"], [], ["b", "c"]])
    }
}
