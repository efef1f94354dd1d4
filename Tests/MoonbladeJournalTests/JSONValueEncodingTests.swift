import Foundation
import MoonbladeHost
import Testing

/// The recorder's direct encoder gives what `JSONEncoder` writes, read back as a `JSONValue`.
@Suite struct JSONValueEncodingTests {
    struct Sample: Encodable {
        enum Mood: String, Encodable { case calm }
        enum Shape: Encodable { case circle(radius: Double), dot }
        struct Inner: Encodable { var tags: [String]; var grid: [[Int]] }

        var count = 3
        var ratio = 0.5
        var name = "ada"
        var flag = true
        var missing: Int? = nil
        var present: Int? = 7
        var mood = Mood.calm
        var shapes = [Shape.circle(radius: 2.5), .dot]
        var inner = Inner(tags: ["a", "b"], grid: [[1, 2], []])
        var byName = ["x": 1, "y": 2]
        var small: UInt8 = 200
        var dynamic: JSONValue = ["nested": [1, "two"]]
    }

    @Test func matchesJSONEncoder() throws {
        let direct = try JSONValue(encoding: Sample())
        let viaText = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(Sample()))
        #expect(direct == viaText)
        #expect(direct["ratio"] == .double(0.5))
        #expect(direct["missing"] == nil)
    }

    @Test func anIntegerBeyond64BitsIsAnError() {
        struct Huge: Encodable { var value = UInt64.max }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Huge()) }
    }
}
