import Foundation
import MoonbladeResidentState
import Testing

@testable import MoonbladeLua

/// Counts `init(from:)` calls of ``Counted`` items, passed through the decoder's `userInfo`.
final class DecodeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() { lock.withLock { value += 1 } }
    func reset() { lock.withLock { value = 0 } }
    static let key = CodingUserInfoKey(rawValue: "decodeCounter")!
}

/// An item that counts how often it is decoded.
struct Counted: Decodable, Encodable, Equatable {
    var id: Int
    var done: Bool

    init(id: Int, done: Bool) {
        self.id = id
        self.done = done
    }

    enum CodingKeys: CodingKey { case id, done }

    init(from decoder: any Decoder) throws {
        (decoder.userInfo[DecodeCounter.key] as? DecodeCounter)?.increment()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        done = try container.decode(Bool.self, forKey: .done)
    }
}

struct CountedState: Codable, Equatable {
    var counter = 0
    var items: [Counted]
    var byName: [String: Counted] = [:]
}

/// A dynamic state like the host's `JSONValue`: conforms by patching its `.array` and `.object` cases.
enum Dynamic: Decodable, Equatable, LuaStatePatchable {
    case number(Double), string(String), bool(Bool), array([Dynamic]), object([String: Dynamic])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([Dynamic].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: Dynamic].self))
        }
    }

    static func luaPatched(from base: Dynamic, changes: LuaTableChanges) throws -> Dynamic? {
        switch base {
        case .array(let items): try changes.patchedArray(items).map(Dynamic.array)
        case .object(let fields): try changes.patchedDictionary(fields).map(Dynamic.object)
        default: nil
        }
    }
}

@Suite("Resident state: decoding only what changed")
struct LuaDecodingCacheTests {
    let counter = DecodeCounter()
    var decoder: LuaDecoder {
        var decoder = LuaDecoder()
        decoder.userInfo[DecodeCounter.key] = counter
        return decoder
    }

    func harness(items: Int) throws -> (ResidentStateHarness, CountedState) {
        let state = CountedState(
            items: (1...items).map { Counted(id: $0, done: false) },
            byName: ["a": Counted(id: 1, done: true), "b": Counted(id: 2, done: false)])
        let harness = try ResidentStateHarness(state)
        #expect(try harness.resident.decode(CountedState.self, of: #require(harness.resident.current), decoder: decoder) == state)
        return (harness, state)
    }

    /// Drafts `source`, decodes it with the counting decoder, commits, and returns the value and how
    /// many items were decoded.
    func update(_ harness: ResidentStateHarness, _ source: String) throws -> (CountedState, Int) {
        let pending = try harness.draft(source)
        counter.reset()
        let value = try harness.resident.decode(CountedState.self, of: pending, decoder: decoder)
        harness.commit(pending)
        return (value, counter.count)
    }

    @Test func aTopLevelChangeDecodesNoItem() throws {
        var (harness, expected) = try harness(items: 100)
        let (value, decoded) = try update(harness, "state.counter = 5")
        expected.counter = 5
        #expect(value == expected)
        #expect(decoded == 0)
    }

    @Test func anItemChangeDecodesThatItemOnly() throws {
        var (harness, expected) = try harness(items: 100)
        let (value, decoded) = try update(harness, "state.items[50].done = true; state.byName.b.done = true")
        expected.items[49].done = true
        expected.byName["b"]!.done = true
        #expect(value == expected)
        #expect(decoded == 2)
    }

    @Test func arraysThatGrowShrinkAndShiftArePatchedRight() throws {
        var (harness, expected) = try harness(items: 10)
        var (value, decoded) = try update(harness, "table.remove(state.items, 4)")
        expected.items.remove(at: 3)
        #expect(value == expected)
        #expect(decoded == 0)  // positions 4…9 hold the items that were one further on: reused, not decoded
        (value, decoded) = try update(
            harness, "table.insert(state.items, { id = 99, done = true }); state.items[#state.items + 1] = { id = 100, done = false }")
        expected.items += [Counted(id: 99, done: true), Counted(id: 100, done: false)]
        #expect(value == expected)
        #expect(decoded == 2)
        (value, _) = try update(
            harness, "for i = 1, 5 do state.items[#state.items] = nil end; state.byName.a = nil; state.byName.c = { id = 3, done = true }")
        expected.items.removeLast(5)
        expected.byName = ["b": Counted(id: 2, done: false), "c": Counted(id: 3, done: true)]
        #expect(value == expected)
    }

    @Test func aKeySetBackAndWrittenAgainIsPatchedOnce() throws {
        var (harness, expected) = try harness(items: 10)
        let (value, decoded) = try update(
            harness,
            "state.items[11] = { id = 11, done = false }; state.items[11] = nil; state.items[11] = { id = 12, done = true }")
        expected.items.append(Counted(id: 12, done: true))
        #expect(value == expected)
        #expect(decoded == 1)  // listed twice, the growth would not add up and the list be decoded in full
    }

    /// The cache keeps one decoder for every decode: each must still read with the settings it is given.
    @Test func eachDecodeReadsWithTheSettingsItIsGiven() throws {
        struct Seed: Encodable { var blob = "aGk=", n = 0 }
        struct Blob: Decodable, Equatable { var blob: Data, n: Int }
        let harness = try ResidentStateHarness(Seed())
        var raw = LuaDecoder()
        raw.dataDecodingStrategy = .luaString
        for (n, decoder, blob) in [(1, LuaDecoder(), "hi"), (2, raw, "aGk="), (3, LuaDecoder(), "hi")] {
            let pending = try harness.draft("state.n = \(n)")
            #expect(try harness.resident.decode(Blob.self, of: pending, decoder: decoder) == Blob(blob: Data(blob.utf8), n: n))
            harness.commit(pending)
        }
    }

    /// A decode started inside another (here from an `init(from:)`) gets a decoder of its own: the
    /// cache's kept one is the outer decode's until it ends.
    @Test func aDecodeInsideADecodeLeavesTheOuterOneWhole() throws {
        final class NestedRead: @unchecked Sendable {
            var read: (() throws -> Int)?
            static let key = CodingUserInfoKey(rawValue: "nestedRead")!
        }
        struct Inner: Decodable, Equatable {
            var counter: Int, nested: Int
            enum CodingKeys: CodingKey { case counter }
            init(counter: Int, nested: Int) { (self.counter, self.nested) = (counter, nested) }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                nested = try (decoder.userInfo[NestedRead.key] as? NestedRead)?.read?() ?? -1
                counter = try container.decode(Int.self, forKey: .counter)
            }
        }
        struct Outer: Decodable, Equatable { var inner: Inner, n: Int }
        struct Seed: Encodable { var inner = ["counter": 5], n = 1, counter = 3, items: [Int] = [], byName: [String: Int] = [:] }
        let harness = try ResidentStateHarness(Seed())
        let before = try #require(harness.resident.current)
        let nested = NestedRead()
        nested.read = { try harness.resident.decode(CountedState.self, of: before).counter }
        var decoder = LuaDecoder()
        decoder.userInfo[NestedRead.key] = nested
        let pending = try harness.draft("state.n = 2; state.inner.counter = 6")
        #expect(try harness.resident.decode(Outer.self, of: pending, decoder: decoder) == Outer(inner: Inner(counter: 6, nested: 3), n: 2))
    }

    /// The machinery keeps one table of change records and empties it for the next updater (or makes
    /// it again after a large change): no record of an earlier dispatch may be read as a later one's.
    @Test func eachDispatchIsPatchedFromItsOwnChangeRecords() throws {
        var (harness, expected) = try harness(items: 100)
        var (value, decoded) = try update(harness, "for i = 1, 40 do state.items[i].done = true end")
        for i in 0..<40 { expected.items[i].done = true }
        #expect(value == expected)
        #expect(decoded == 40)
        for position in [60, 70, 70] {
            (value, decoded) = try update(harness, "state.items[\(position)].done = not state.items[\(position)].done")
            expected.items[position - 1].done.toggle()
            #expect(value == expected)
            #expect(decoded == 1)
        }
        (value, decoded) = try update(harness, "state.counter = 1")
        expected.counter = 1
        #expect(value == expected)
        #expect(decoded == 0)
    }

    /// A collection Lua code changes on every dispatch offers only its current copy for reuse, and the
    /// one before it while its superseded entry (which holds it anyway) waits one more decode: each
    /// older copy (a whole array) goes then, not at the next sweep, which waited for hundreds of them
    /// (a host of 100,000 items held ~1 GB that way).
    @Test func aCollectionChangedEveryDispatchKeepsNoOlderCopyForReuse() throws {
        var (harness, expected) = try harness(items: 50)
        for step in 1...300 {
            let position = step % 50 + 1
            let (value, _) = try update(harness, "state.items[\(position)].done = not state.items[\(position)].done")
            expected.items[position - 1].done.toggle()
            #expect(value == expected)
        }
        // `items` now and one dispatch ago, and `byName`, the state's two collections.
        #expect(harness.resident.reusableCollectionCount == 3)
    }

    @Test func manyVersionsWithCollectionsStayCorrectAndTheCacheBounded() throws {
        var (harness, expected) = try harness(items: 20)
        for step in 1...400 {
            let position = step % 20 + 1
            let (value, _) = try update(
                harness,
                """
                state.counter = \(step)
                state.items[\(position)] = { id = \(step), done = \(step % 2 == 0) }
                state.byName["k\(step % 7)"] = state.items[\(position)]
                if \(step) % 10 == 0 then collectgarbage() end
                """)
            expected.counter = step
            expected.items[position - 1] = Counted(id: step, done: step % 2 == 0)
            expected.byName["k\(step % 7)"] = expected.items[position - 1]
            #expect(value == expected)
            if step % 50 == 0 {
                try harness.vm.run("collectgarbage(); collectgarbage()")
                let current = try #require(harness.resident.current)
                #expect(try harness.resident.decode(CountedState.self, of: current) == expected)
            }
        }
        // Entries of collected versions are swept once the cache has doubled, from a floor of 256.
        #expect(harness.resident.cachedValueCount <= 600)
    }

    @Test func aDynamicStateIsPatchedThroughItsEnumCases() throws {
        struct Item: Encodable { var id: Double, done: Bool }
        struct Seed: Encodable { var todos: [Item], title: String }
        let harness = try ResidentStateHarness(Seed(todos: (1...50).map { Item(id: Double($0), done: false) }, title: "t"))
        _ = try harness.resident.decode(Dynamic.self, of: #require(harness.resident.current))
        var expected = (1...50).map { Dynamic.object(["id": .number(Double($0)), "done": .bool(false)]) }
        for step in 1...60 {
            // Positions 1…40 always hold objects: at most six are removed, and strings go at the end.
            let position = step % 40
            guard case .object(var fields) = expected[position] else { Issue.record("not an object"); return }
            fields["done"] = .bool(step % 2 == 0)
            expected[position] = .object(fields)
            if step % 9 == 0 {
                expected.remove(at: 3)
                expected.append(.string("s\(step)"))
            }
            let value = try harness.update(
                Dynamic.self,
                """
                state.todos[\(position + 1)].done = \(step % 2 == 0)
                if \(step) % 9 == 0 then table.remove(state.todos, 4); table.insert(state.todos, "s\(step)") end
                if \(step) % 20 == 0 then collectgarbage() end
                """)
            #expect(value == .object(["todos": .array(expected), "title": .string("t")]))
        }
    }

    /// The change record of the draft an updater was handed is kept apart when that draft becomes the
    /// new root, and filed with the others when the updater returns a new table holding it.
    @Test func aDraftReturnedInsideANewTableIsPatchedLikeAnyOther() throws {
        struct Seed: Encodable { var tags = ["a", "b", "c"], title = "t" }
        let harness = try ResidentStateHarness(Seed())
        _ = try harness.resident.decode(Dynamic.self, of: #require(harness.resident.current))
        let tags = Dynamic.array([.string("a"), .string("b"), .string("c")])
        var value = try harness.update(Dynamic.self, "state.title = 'u'; return { inner = state }")
        #expect(value == .object(["inner": .object(["tags": tags, "title": .string("u")])]))
        value = try harness.update(Dynamic.self, "state.inner.tags[2] = 'x'")
        #expect(value == .object(["inner": .object(["tags": .array([.string("a"), .string("x"), .string("c")]), "title": .string("u")])]))
        value = try harness.update(Dynamic.self, "return state.inner")
        #expect(value == .object(["tags": .array([.string("a"), .string("x"), .string("c")]), "title": .string("u")]))
    }
}
