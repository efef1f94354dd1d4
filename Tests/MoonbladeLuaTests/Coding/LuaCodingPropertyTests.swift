import Foundation
import MoonbladeLua
import MoonbladeTestSupport
import PropertyBased
import Testing

/// Integers of every width, at their full ranges (unsigned 64-bit ones up to `Int64.max`, the
/// largest a Lua integer holds).
struct Widths: Codable, Equatable {
    var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
    var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
}

enum Mood: String, Codable, Equatable { case calm, busy, away }

enum Event: Codable, Equatable {
    case created(at: Int64)
    case renamed(String, previous: String?)
    case cleared
}

struct Leaf: Codable, Equatable {
    var label: String
    var weight: Double
    var ratio: Float
    var flag: Bool?
}

/// A value shaped like app state: every mapping rule at once.
struct Sample: Codable, Equatable {
    var widths: Widths
    var name: String
    var note: String?
    var leaves: [Leaf]
    var byName: [String: Int]
    var byID: [Int: String]
    var matrix: [[Int8]]
    var mood: Mood
    var events: [Event]
    var child: Leaf?
    var when: Date
}

@Suite("Lua coding: property-based round trips")
struct LuaCodingPropertyTests {
    /// Strings built from pieces that stress the mapping: NUL bytes, multi-byte UTF-8, quotes, newlines.
    static let text = Gen.element(of: ["", "a", "Z", "\0", "ü", "✓", "😀", "\"", "\n", "key", " ", "1", "é"])
        .array(of: 0...6).map { $0.compactMap { $0 }.joined() }

    static let widths = zip(
        Gen.int(), Gen.int8(), Gen.int16(), Gen.int32(), Gen.int64(),
        Gen.uint(in: 0...UInt(Int64.max)), Gen.uint8(), Gen.uint16(), Gen.uint32(), Gen.uint64(in: 0...UInt64(Int64.max))
    ).map { Widths(int: $0, int8: $1, int16: $2, int32: $3, int64: $4, uint: $5, uint8: $6, uint16: $7, uint32: $8, uint64: $9) }

    static let leaf = zip(
        text, Gen.double(in: -1e300...1e300), Gen.float(in: -1e30...1e30), Gen.bool.optional
    ).map { Leaf(label: $0, weight: $1, ratio: $2, flag: $3) }

    static let event = zip(Gen.int(in: 0...2), Gen.int64(), text, text.optional).map { kind, time, name, previous -> Event in
        switch kind {
        case 0: .created(at: time)
        case 1: .renamed(name, previous: previous)
        default: .cleared
        }
    }

    static let sample = zip(
        widths, text, text.optional, leaf.array(of: 0...4),
        zip(text, Gen.int()).array(of: 0...4).map { Dictionary($0, uniquingKeysWith: { a, _ in a }) },
        zip(Gen.int(), text).array(of: 0...4).map { Dictionary($0, uniquingKeysWith: { a, _ in a }) },
        Gen.int8().array(of: 0...3).array(of: 0...3),
        Gen.element(of: [Mood.calm, .busy, .away]).map { $0! },
        event.array(of: 0...3),
        zip(leaf.optional, Gen.int(in: -4_000_000_000...4_000_000_000))
    ).map { widths, name, note, leaves, byName, byID, matrix, mood, events, rest in
        Sample(
            widths: widths, name: name, note: note, leaves: leaves, byName: byName, byID: byID, matrix: matrix,
            mood: mood, events: events, child: rest.0, when: Date(timeIntervalSince1970: TimeInterval(rest.1)))
    }

    @Test func anySampleRoundTripsExactly() async throws {
        let vm = try LuaVM()
        await propertyCheck(count: 300, input: Self.sample) { sample throws in
            #expect(try roundTrip(sample, vm: vm) == sample)
        }
    }

    @Test func anySampleRoundTripsThroughLuaCodeThatCopiesIt() async throws {
        // Lua rebuilds the table key by key: what the decoder reads is what Lua code made.
        let vm = try LuaVM()
        try vm.run(luaDeepCopySource)
        await propertyCheck(count: 200, input: Self.sample) { sample in
            try expectBalanced(vm) {
                vm.stack.pushGlobals()
                vm.stack.rawGet(table: -1, field: "deep_copy")
                vm.stack.remove(at: -2)
                try LuaEncoder().push(sample, onto: vm.stack)
                try vm.stack.call(arguments: 1, results: 1)
                defer { vm.stack.pop() }
                #expect(try LuaDecoder().decode(Sample.self, from: vm.stack, at: -1) == sample)
            }
        }
    }

    @Test func anyDoubleKeepsItsBitsAndStaysAFloat() async throws {
        let vm = try LuaVM()
        let special = Gen.element(of: [0.0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 3.0])
            .map { $0! }
        await propertyCheck(count: 300, input: Gen.double(in: -8e307...8e307), special) { random, special in
            for value in [random, special] {
                let back = try roundTrip(value, vm: vm)
                #expect(back.bitPattern == value.bitPattern || (back.isNaN && value.isNaN))
                try LuaEncoder().push(value, onto: vm.stack)
                #expect(!vm.stack.isInteger(at: -1))
                vm.stack.pop()
            }
        }
    }

    @Test func anyDateRoundTripsExactlyWithDeferredToDate() async throws {
        var encoder = LuaEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        var decoder = LuaDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        await propertyCheck(count: 200, input: Gen.double(in: -1e10...1e10)) { seconds throws in
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            #expect(try roundTrip(date, encoder: encoder, decoder: decoder) == date)
        }
    }

    @Test func anyIntegerOutOfAWidthsRangeIsRejectedNotWrapped() async throws {
        let vm = try LuaVM()
        await propertyCheck(count: 300, input: Gen.int64()) { value in
            try vm.stack.reserve(1)
            vm.stack.push(value)
            defer { vm.stack.pop() }
            let decoded = try? LuaDecoder().decode(Int16.self, from: vm.stack, at: -1)
            #expect(decoded == Int16(exactly: value))
            let unsigned = try? LuaDecoder().decode(UInt32.self, from: vm.stack, at: -1)
            #expect(unsigned == UInt32(exactly: value))
        }
    }
}
