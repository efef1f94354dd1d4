import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// The `Encodable` → `JSONValue` encoder: the JSON `JSONEncoder` would write, with the collections a
/// new state shares with the previous one taken from the previous encoding.
@Suite struct JSONValueEncoderTests {
    struct Item: Codable, Equatable {
        var title: String
        var done: Bool
        var tags: Set<String> = []
    }

    struct Board: Codable, Equatable {
        enum Mode: String, Codable { case calm, busy }
        var counter = 0
        var ratio: Float = 0.5
        var small: UInt8 = 7
        var mode = Mode.calm
        var note: String? = nil
        var items = (0..<50).map { Item(title: "item \($0)", done: $0 % 2 == 0) }
        var byName: [String: [Int]] = ["a": [1, 2], "b": []]
        // Fractional: `JSONEncoder` writes 2.0 as 2, which reads back as an integer.
        var grid: [[Double]] = [[1.5], [], [2.25, 3.5]]
    }

    /// A collection element whose objects change in place: never taken from the previous encoding.
    final class Cell: Codable, @unchecked Sendable {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    private func viaText(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// The storage of an array inside a JSON value, to tell whether two encodings share it.
    private func arrayStorage(_ json: JSONValue?) -> [UInt8] {
        guard case .array(let elements)? = json else { return [] }
        return withUnsafeBytes(of: elements) { Array($0) }
    }

    @Test func successiveStatesEncodeAsJSONEncoderWrites() throws {
        let encoder = JSONValueEncoder()
        var board = Board()
        #expect(try encoder.encode(board) == viaText(board))
        board.counter += 1
        board.note = "hello"
        #expect(try encoder.encode(board) == viaText(board))
        board.items[3].done.toggle()
        board.items[7].tags.insert("red")
        board.byName["b", default: []].append(9)
        board.grid.removeLast()
        #expect(try encoder.encode(board) == viaText(board))
        board.items.append(Item(title: "new", done: false))
        board.mode = .busy
        #expect(try encoder.encode(board) == viaText(board))
    }

    /// Each container and scalar type, and a parent's part written with `superEncoder()` by a type
    /// whose keys have no `super` case (which trapped the journal's writer): encoded twice, the second
    /// time beside the first.
    @Test func everyContainerEncodesAsJSONEncoderWrites() throws {
        let value = JSONValueEncodingTests.EveryContainer()
        let encoder = JSONValueEncoder()
        #expect(try encoder.encode(value) == viaText(value))
        #expect(try encoder.encode(value) == viaText(value))
    }

    @Test func aSharedCollectionIsTakenFromThePreviousEncoding() throws {
        let encoder = JSONValueEncoder()
        var board = Board()
        let first = try encoder.encode(board)
        board.counter = 5
        let second = try encoder.encode(board)
        #expect(second["counter"] == .integer(5))
        #expect(arrayStorage(second["items"]) == arrayStorage(first["items"]))
        board.items[0].title = "changed"
        let third = try encoder.encode(board)
        #expect(arrayStorage(third["items"]) != arrayStorage(second["items"]))
        #expect(third == (try viaText(board)))
        #expect(StatePatch(from: second, to: third).changes == [.init(path: [.key("items"), .index(0), .key("title")], value: "changed")])
    }

    @Test func objectsInACollectionAreEncodedEveryTime() throws {
        let encoder = JSONValueEncoder()
        let cells = [Cell(1), Cell(2)]
        #expect(try encoder.encode(cells) == [["value": 1], ["value": 2]])
        cells[1].value = 20
        #expect(try encoder.encode(cells) == [["value": 1], ["value": 20]])
    }

    /// Optional objects change in place just the same (an `Optional<Cell>` element is no class).
    @Test func optionalObjectsInACollectionAreEncodedEveryTime() throws {
        let encoder = JSONValueEncoder()
        let cells: [String: Cell?] = ["a": Cell(1), "b": nil]
        #expect(try encoder.encode(cells) == ["a": ["value": 1], "b": nil])
        cells["a"]??.value = 10
        #expect(try encoder.encode(cells) == ["a": ["value": 10], "b": nil])
    }

    @Test func aFailedEncodingLeavesThePreviousStateToCompareWith() throws {
        struct Limited: Encodable {
            var values: [UInt64]
        }
        let encoder = JSONValueEncoder()
        let values: [UInt64] = [1, 2]
        let first = try encoder.encode(Limited(values: values))
        #expect(throws: EncodingError.self) { try encoder.encode(Limited(values: [1, .max])) }
        #expect(arrayStorage(try encoder.encode(Limited(values: values))["values"]) == arrayStorage(first["values"]))
    }

    /// The state arrives as `any Sendable` (the recorder's view): opened to its own type, a state of
    /// another type is encoded as that type, and one that is not `Encodable` is an error, not a trap.
    @Test func aStateIsEncodedAsItsOwnTypeAndOneNotEncodableIsAnError() throws {
        struct Opaque: Sendable {}
        let encoder = JSONValueEncoder()
        let states: [any Sendable] = [Board(), Item(title: "a", done: true), Opaque(), Board()]
        #expect(try encoder.encode(states[0]) == viaText(Board()))
        #expect(try encoder.encode(states[1]) == viaText(Item(title: "a", done: true)))
        #expect(throws: EncodingError.self) { try encoder.encode(states[2]) }
        #expect(try encoder.encode(states[3]) == viaText(Board()))
    }
}
