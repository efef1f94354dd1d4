import CLua
import Foundation
import Testing

@testable import MoonbladeLua

/// What a VM's coders keep from one push or decode to the next (their keyed containers, the field
/// names' strings in the registry) changes no value, error or coding path, stays bounded, and goes with
/// the VM.
@Suite("What the coders keep between uses")
struct LuaCoderReuseTests {
    struct Small: Codable, Equatable {
        var n: Int
        enum CodingKeys: CodingKey { case n }
    }
    struct Other: Codable, Equatable { var n: String; var m: Bool }

    @Test func valuesOfDifferentTypesPushedAtTheSameSlotKeepTheirOwnShape() throws {
        let vm = try LuaVM()
        for round in 0..<3 {
            try expectBalanced(vm) { () throws in
                // The same slot, alternating key types and key kinds (string and integer keys).
                #expect(try roundTrip(Small(n: round), vm: vm) == Small(n: round))
                #expect(try roundTrip(Other(n: "x\(round)", m: true), vm: vm) == Other(n: "x\(round)", m: true))
                #expect(try roundTrip([round: "a", 10: "b"], vm: vm) == [round: "a", 10: "b"])
                #expect(try roundTrip(["k\(round)": round], vm: vm) == ["k\(round)": round])
            }
        }
    }

    @Test func aKeptContainerReportsEachUsesOwnErrorsAndPaths() throws {
        let vm = try LuaVM()
        for _ in 0..<2 {
            #expect(try decodeLua(Small.self, "return { n = 1 }", vm: vm) == Small(n: 1))
            #expect(decodingFailure(Small.self, "return { n = 'one' }", vm: vm) == #"state.n: expected Int, found string "one""#)
            #expect(decodingFailure(Small.self, "return { m = 1 }", vm: vm) == #"state: required key "n" is missing"#)
            #expect(decodingFailure(Small.self, "return { n = 1, [1] = 2 }", vm: vm) == "state: expected a table with string keys, found key [1]")
            #expect(decodingFailure([Small].self, "return { { n = 1 }, { n = true } }", vm: vm) == "state[2].n: expected Int, found boolean true")
        }
    }

    /// Reads `decoder.userInfo["tag"]`, to see which settings a kept decoder decodes with.
    struct Tagged: Decodable, Equatable {
        var tag: String?
        init(tag: String?) { self.tag = tag }
        init(from decoder: any Decoder) throws {
            tag = decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] as? String
        }
    }

    @Test func eachUseCodesWithItsOwnSettings() throws {
        let vm = try LuaVM()
        let date = Date(timeIntervalSince1970: 100)
        var seconds = LuaEncoder()
        seconds.dateEncodingStrategy = .secondsSince1970
        var tagged = LuaDecoder()
        tagged.userInfo = [CodingUserInfoKey(rawValue: "tag")!: "one"]
        for _ in 0..<2 {
            try seconds.push(date, onto: vm.stack)
            #expect(vm.stack.number(at: -1) == 100)
            try LuaEncoder().push(date, onto: vm.stack)  // the default: seconds since 2001
            #expect(vm.stack.number(at: -1) == date.timeIntervalSinceReferenceDate)
            vm.stack.pop(2)
            #expect(try decodeLua(Tagged.self, "return {}", decoder: tagged, vm: vm) == Tagged(tag: "one"))
            #expect(try decodeLua(Tagged.self, "return {}", vm: vm) == Tagged(tag: nil))
        }
    }

    /// A value whose `encode(to:)` pushes another value onto the same VM: the inner push gets a coder
    /// of its own, which must keep nothing of the outer one's containers or names.
    struct Reentrant: Encodable {
        let vm: LuaVM
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Small.CodingKeys.self)
            try LuaEncoder().push(Other(n: "inner", m: false), onto: vm.stack)
            vm.stack.pop()
            try container.encode(7, forKey: .n)
        }
    }

    @Test func aPushInsideAPushKeepsBothValuesApart() throws {
        let vm = try LuaVM()
        for _ in 0..<2 {
            try expectBalanced(vm) {
                try LuaEncoder().push(Reentrant(vm: vm), onto: vm.stack)
                #expect(try LuaDecoder().decode(Small.self, from: vm.stack, at: -1) == Small(n: 7))
                vm.stack.pop()
            }
        }
    }

    @Test func theKeptCodersGoWithTheirVM() throws {
        weak var encoder: LuaValueEncoder?
        weak var decoder: LuaValueDecoder?
        do {
            let vm = try LuaVM()
            #expect(try roundTrip(Small(n: 1), vm: vm) == Small(n: 1))
            let runtime = vm.runtime
            encoder = runtime.encoders.take(state: vm.stack.state, options: LuaEncoder())
            decoder = runtime.decoders.take(state: vm.stack.state, options: LuaDecoder())
            runtime.encoders.giveBack(encoder!)
            runtime.decoders.giveBack(decoder!)
        }
        #expect(encoder == nil)
        #expect(decoder == nil)
    }

    /// A one-byte key type with 256 values: more key values than a VM remembers.
    struct ByteKey: CodingKey {
        let byte: UInt8
        init(_ byte: UInt8) { self.byte = byte }
        init?(stringValue: String) {
            guard stringValue.hasPrefix("k"), let byte = UInt8(stringValue.dropFirst()) else { return nil }
            self.byte = byte
        }
        init?(intValue: Int) { nil }
        var stringValue: String { "k\(byte)" }
        var intValue: Int? { nil }
    }

    struct Wide: Codable, Equatable {
        var values: [Int]
        init(values: [Int]) { self.values = values }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: ByteKey.self)
            values = try (0...255).map { try container.decode(Int.self, forKey: ByteKey(UInt8($0))) }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: ByteKey.self)
            for (byte, value) in values.enumerated() { try container.encode(value, forKey: ByteKey(UInt8(byte))) }
        }
    }

    @Test func namesPastWhatAVMKeepsStillReadAndWriteTheirOwnKeys() throws {
        let vm = try LuaVM()
        let wide = Wide(values: Array(1000..<1256))
        for _ in 0..<2 {
            #expect(try roundTrip(wide, vm: vm) == wide)
            #expect(
                try encodeThenRun(wide, "return state.k0, state.k191, state.k192, state.k255") == [
                    .integer(1000), .integer(1191), .integer(1192), .integer(1255),
                ])
        }
    }

    @Test func otherNamesTakeNoNewRegistrySlotsFromOneValueToTheNext() throws {
        let vm = try LuaVM()
        func registrySize() -> Int {
            let L = vm.stack.state
            var count = 0
            lua_pushnil(L)
            while lua_next(L, moonblade_registryindex) != 0 {
                count += 1
                lua_settop(L, -2)
            }
            return count
        }
        // Dictionary keys are data: each value's are kept while it is coded, in slots the next reuses.
        let first = Dictionary(uniqueKeysWithValues: (0..<40).map { ("first\($0)", $0) })
        #expect(try roundTrip(first, vm: vm) == first)
        let size = registrySize()
        for round in 0..<5 {
            let next = Dictionary(uniqueKeysWithValues: (0..<40).map { ("round\(round)key\($0)", $0) })
            #expect(try roundTrip(next, vm: vm) == next)
        }
        #expect(registrySize() == size)
    }
}
