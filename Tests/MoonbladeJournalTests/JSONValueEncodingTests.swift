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

    /// Every scalar type written through each container by hand: unkeyed items, nested containers
    /// in a sequence, a parent's part (`superEncoder`), an explicit `null`, and enums of each raw type
    /// (single values).
    struct EveryContainer: Encodable {
        enum I8: Int8, Encodable { case low = -128 }
        enum I16: Int16, Encodable { case high = 32767 }
        enum I32: Int32, Encodable { case low = -2_147_483_648 }
        enum I64: Int64, Encodable { case high = 9_223_372_036_854_775_807 }
        enum U: UInt, Encodable { case high = 9_223_372_036_854_775_807 }
        enum U16: UInt16, Encodable { case high = 65535 }
        enum U32: UInt32, Encodable { case high = 4_294_967_295 }
        enum U64: UInt64, Encodable { case high = 9_223_372_036_854_775_807 }
        enum F: Float, Encodable { case half = 0.5 }
        enum D: Double, Encodable { case quarter = -0.25 }
        enum CodingKeys: String, CodingKey { case items, raw, gone, parent }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var items = container.nestedUnkeyedContainer(forKey: .items)
            try items.encode(true)
            try items.encode("s")
            try items.encode(0.5 as Double)
            try items.encode(0.25 as Float)
            try items.encode(-1 as Int)
            try items.encode(Int8.min)
            try items.encode(Int16.min)
            try items.encode(Int32.min)
            try items.encode(Int64.min)
            try items.encode(UInt(7))
            try items.encode(UInt8.max)
            try items.encode(UInt16.max)
            try items.encode(UInt32.max)
            try items.encode(UInt64(Int64.max))
            try items.encodeNil()
            var pair = items.nestedContainer(keyedBy: CodingKeys.self)
            try pair.encode(1, forKey: .gone)
            var list = items.nestedUnkeyedContainer()
            try list.encode(2)
            try 3.encode(to: items.superEncoder())
            var raw = container.nestedUnkeyedContainer(forKey: .raw)
            try raw.encode(I8.low)
            try raw.encode(I16.high)
            try raw.encode(I32.low)
            try raw.encode(I64.high)
            try raw.encode(U.high)
            try raw.encode(U16.high)
            try raw.encode(U32.high)
            try raw.encode(U64.high)
            try raw.encode(F.half)
            try raw.encode(D.quarter)
            try container.encodeNil(forKey: .gone)
            try ["inherited": 1].encode(to: container.superEncoder(forKey: .parent))
            try [4].encode(to: container.superEncoder())
        }
    }

    @Test func matchesJSONEncoderInEveryContainer() throws {
        let direct = try JSONValue(encoding: EveryContainer())
        let viaText = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(EveryContainer()))
        #expect(direct == viaText)
        #expect(direct["items"]?[14] == .null)
        #expect(direct["gone"] == .null)
    }

    @Test func anIntegerBeyond64BitsIsAnError() {
        struct Huge: Encodable { var value = UInt64.max }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Huge()) }
        struct HugeItem: Encodable {
            func encode(to encoder: any Encoder) throws {
                var items = encoder.unkeyedContainer()
                try items.encode(UInt.max)
            }
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: HugeItem()) }
        struct HugeSingle: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(UInt64.max)
            }
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: HugeSingle()) }
    }
}
