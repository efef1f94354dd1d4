import Foundation
import MoonbladeLua
import Testing

@Suite("LuaEncoder: Swift values as Lua tables")
struct LuaEncoderTests {
    let state = TodoState(
        todos: [
            Todo(title: "milk", done: false, tags: ["shop", "food"]),
            Todo(title: "tax", done: true, tags: []),
            Todo(title: "nul\0byte ✓", done: false, tags: ["x"]),
        ],
        owner: User(name: "Ada", age: 36))

    @Test func structsBecomeStringKeyedTablesAndArraysSequencesLuaCanRead() throws {
        let results = try encodeThenRun(
            state,
            """
            local t = state.todos
            return #t, t[1].title, t[2].done, #t[1].tags, t[1].tags[2], #t[2].tags, state.owner.name,
                   math.type(state.owner.age), #t[3].title, t[3].title
            """)
        #expect(results == [3, "milk", true, 2, "food", 0, "Ada", "integer", 12, "nul\0byte ✓"])
    }

    @Test func doublesAreFloatsEvenWhenIntegralAndIntegersAreIntegers() throws {
        struct Numbers: Encodable {
            var double = 3.0, float: Float = 2.5, int = 3, int8: Int8 = -8, uint64: UInt64 = UInt64(Int64.max)
            var nan = Double.nan, infinity = -Double.infinity
        }
        let results = try encodeThenRun(
            Numbers(),
            """
            local s = state
            return math.type(s.double), s.double, s.float, math.type(s.int), s.int8, s.uint64 == math.maxinteger,
                   s.nan ~= s.nan, s.infinity == -math.huge
            """)
        #expect(results == ["float", 3.0, 2.5, "integer", -8, true, true, true])
    }

    @Test(arguments: [UInt64(Int64.max) + 1, UInt64.max])
    func unsignedIntegersAboveInt64MaxAreAnErrorNotAWrap(_ value: UInt64) throws {
        struct Wrapper: Encodable { var id: UInt64; var list: [UInt64] }
        #expect(encodingFailure(Wrapper(id: value, list: [])) == "state.id: \(value) does not fit in a Lua integer (the largest is \(Int64.max))")
        #expect(
            encodingFailure(Wrapper(id: 1, list: [1, value])) == "state.list[2]: \(value) does not fit in a Lua integer (the largest is \(Int64.max))"
        )
        #expect(encodingFailure(value)?.hasPrefix("state: ") == true)
        #expect(encodingFailure(UInt(value))?.hasPrefix("state: ") == true)
    }

    @Test func nilLeavesTheKeyAbsent() throws {
        struct Sparse: Encodable { var present: Int? = 1; var absent: Int? = nil; var nested: [String: Int?] = ["a": nil, "b": 2] }
        let results = try encodeThenRun(
            Sparse(),
            """
            local keys = 0
            for _ in pairs(state) do keys = keys + 1 end
            local nested = 0
            for _ in pairs(state.nested) do nested = nested + 1 end
            return keys, state.absent == nil, state.present, nested, state.nested.b
            """)
        #expect(results == [2, true, 1, 1, 2])
    }

    @Test func nilInASequenceIsAnErrorByDefault() {
        let values: [Int?] = [1, nil, 3]
        #expect(encodingFailure(values) == "state[2]: a Lua sequence cannot hold nil (set nilInSequenceStrategy to .null to encode it as null)")
        struct Holder: Encodable { var list: [[String?]] }
        #expect(encodingFailure(Holder(list: [["a"], ["b", nil]]))?.hasPrefix("state.list[2][2]: ") == true)
    }

    @Test func nilInASequenceCanBeTheNullSentinelAndRoundTrips() throws {
        var encoder = LuaEncoder()
        encoder.nilInSequenceStrategy = .null
        let values: [Int?] = [1, nil, 3, nil]
        let vm = try LuaVM()
        try expectBalanced(vm) {
            try encoder.push(values, onto: vm.stack)
            #expect(vm.stack.rawLength(at: -1) == 4)
            vm.stack.rawGet(table: -1, at: 2)
            #expect(vm.stack.isNull(at: -1))
            #expect(vm.stack.type(at: -1) == .lightUserdata)
            vm.stack.pop()
            #expect(try LuaDecoder().decode([Int?].self, from: vm.stack, at: -1) == values)
            vm.stack.pop()
        }
        #expect(try roundTrip(values, encoder: encoder) == values)
    }

    @Test func integerKeyedDictionariesGetIntegerKeysAndStringKeyedOnesStringKeys() throws {
        let byID: [Int: String] = [3: "three", -1: "minus one", 10: "ten"]
        let results = try encodeThenRun(
            byID,
            """
            local n = 0
            for k in pairs(state) do n = n + 1; assert(math.type(k) == "integer") end
            return n, state[3], state[-1], state["3"]
            """)
        #expect(results == [3, "three", "minus one", .nil])
        let byName: [String: Int] = ["3": 3, "a b": 1]
        #expect(try encodeThenRun(byName, "return state['3'], state[3], state['a b']") == [3, .nil, 1])
        #expect(try roundTrip(byID) == byID)
        #expect(try roundTrip(byName) == byName)
    }

    @Test func otherDictionariesTakeTheirCodableForm() throws {
        let byFlag: [Bool: String] = [true: "yes"]
        #expect(try encodeThenRun(byFlag, "return #state, state[1], state[2]") == [2, true, "yes"])
        #expect(try roundTrip(byFlag) == byFlag)
    }

    enum Priority: String, Codable { case low, high }
    enum Level: Int, Codable { case one = 1, two = 2 }
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case point
        case pair(Int, String)
    }

    @Test func enumsTakeTheirCodableForms() throws {
        struct Enums: Codable, Equatable { var priority: Priority; var level: Level; var shapes: [Shape] }
        let value = Enums(priority: .high, level: .two, shapes: [.circle(radius: 2), .point, .pair(1, "a")])
        let results = try encodeThenRun(
            value,
            """
            local s = state.shapes
            return state.priority, state.level, s[1].circle.radius, type(s[2].point), s[3].pair._0, s[3].pair._1
            """)
        #expect(results == ["high", 2, 2.0, "table", 1, "a"])
        #expect(try roundTrip(value) == value)
    }

    class Base: Codable {
        var id = 1
    }

    final class Derived: Base {
        var name = "derived"
        enum CodingKeys: String, CodingKey { case name }
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func superEncoderWritesUnderTheKeySuper() throws {
        let value = Derived()
        value.id = 7
        #expect(try encodeThenRun(value, "return state.name, state.super.id") == ["derived", 7])
        let back = try roundTrip(value)
        #expect(back.id == 7 && back.name == "derived")
    }

    struct Custom: Codable, Equatable {
        var a: Int
        var b: [String]
        enum Keys: String, CodingKey { case nested, list, single }
        init(a: Int, b: [String]) { self.a = a; self.b = b }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            a = try nested.decode(Int.self, forKey: .single)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            var b: [String] = []
            while !list.isAtEnd {
                var inner = try list.nestedUnkeyedContainer()
                b.append(try inner.decode(String.self))
            }
            self.b = b
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode(a, forKey: .single)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            for item in b {
                var inner = list.nestedUnkeyedContainer()
                try inner.encode(item)
            }
        }
    }

    @Test func nestedContainersNestTables() throws {
        let value = Custom(a: 5, b: ["x", "y"])
        #expect(try encodeThenRun(value, "return state.nested.single, #state.list, state.list[2][1]") == [5, 2, "y"])
        #expect(try roundTrip(value) == value)
    }

    @Test func aValueThatEncodesNothingIsAnEmptyTable() throws {
        struct Nothing: Codable, Equatable {}
        #expect(try encodeThenRun(Nothing(), "return type(state), next(state)") == ["table", .nil])
        #expect(try roundTrip(Nothing()) == Nothing())
    }

    @Test func dateStrategies() throws {
        let date = Date(timeIntervalSince1970: 1_714_566_600)  // 2024-05-01T12:30:00Z
        // The default is the date's own Codable form, bit-exact.
        #expect(try encodeThenRun(date, "return math.type(state), state") == ["float", .number(date.timeIntervalSinceReferenceDate)])
        var encoder = LuaEncoder()
        var decoder = LuaDecoder()
        for (encoding, decoding, expected): (LuaEncoder.DateEncodingStrategy, LuaDecoder.DateDecodingStrategy, LuaValue) in [
            (.secondsSince1970, .secondsSince1970, 1_714_566_600.0),
            (.millisecondsSince1970, .millisecondsSince1970, 1_714_566_600_000.0),
            (.iso8601, .iso8601, "2024-05-01T12:30:00Z"),
            (.deferredToDate, .deferredToDate, .number(date.timeIntervalSinceReferenceDate)),
        ] {
            encoder.dateEncodingStrategy = encoding
            decoder.dateDecodingStrategy = decoding
            #expect(try encodeThenRun(date, encoder: encoder, "return state") == [expected])
            #expect(try roundTrip(date, encoder: encoder, decoder: decoder) == date)
        }
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode("day \(Int(date.timeIntervalSince1970) / 86400)")
        }
        #expect(try encodeThenRun(date, encoder: encoder, "return state") == ["day 19844"])
        // Lua's own clock: os.time() values decode with the 1970 strategy (to the day: os.time is local time).
        var unixDecoder = LuaDecoder()
        unixDecoder.dateDecodingStrategy = .secondsSince1970
        let luaDate = try decodeLua(Date.self, "return os.time{year = 2024, month = 5, day = 1, hour = 12, min = 30}", decoder: unixDecoder)
        #expect(abs(luaDate.timeIntervalSince(date)) < 86400)
    }

    @Test func dataStrategies() throws {
        let data = Data([0, 1, 2, 255, 0x41])
        #expect(try encodeThenRun(data, "return state") == ["AAEC/0E="])
        var encoder = LuaEncoder()
        var decoder = LuaDecoder()
        encoder.dataEncodingStrategy = .deferredToData
        decoder.dataDecodingStrategy = .deferredToData
        #expect(try encodeThenRun(data, encoder: encoder, "return #state, state[4], math.type(state[4])") == [5, 255, "integer"])
        #expect(try roundTrip(data, encoder: encoder, decoder: decoder) == data)
        encoder.dataEncodingStrategy = .luaString
        decoder.dataDecodingStrategy = .luaString
        #expect(try encodeThenRun(data, encoder: encoder, "return #state, state:byte(4)") == [5, 255])
        #expect(try roundTrip(data, encoder: encoder, decoder: decoder) == data)
        #expect(try roundTrip(data) == data)
    }

    @Test func userInfoReachesEncodeAndDecode() throws {
        let key = CodingUserInfoKey(rawValue: "scale")!
        struct Scaled: Codable, Equatable {
            var value: Int
            init(value: Int) { self.value = value }
            init(from decoder: any Decoder) throws {
                value = try decoder.singleValueContainer().decode(Int.self) / (decoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as! Int)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value * (encoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as! Int))
            }
        }
        var encoder = LuaEncoder()
        encoder.userInfo[key] = 10
        var decoder = LuaDecoder()
        decoder.userInfo[key] = 10
        #expect(try encodeThenRun(Scaled(value: 4), encoder: encoder, "return state") == [40])
        #expect(try roundTrip(Scaled(value: 4), encoder: encoder, decoder: decoder) == Scaled(value: 4))
    }

    @Test func codingPathsSeenByEncodeToAreTheLuaPath() throws {
        final class Recorder: Encodable {
            nonisolated(unsafe) static var paths: [String] = []
            func encode(to encoder: any Encoder) throws {
                Recorder.paths.append(encoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "."))
                var container = encoder.singleValueContainer()
                try container.encode(true)
            }
        }
        struct Outer: Encodable { var list: [Recorder]; var map: [String: Recorder] }
        Recorder.paths = []
        _ = try encodeThenRun(Outer(list: [Recorder(), Recorder()], map: ["k": Recorder()]), "return 0")
        #expect(Recorder.paths == ["list.[1]", "list.[2]", "map.k"])
    }

    @Test func aFailedEncodeLeavesNothingBehindAndTheVMUsable() throws {
        struct Deep: Encodable { var a: [[UInt64]] }
        let vm = try LuaVM()
        try expectBalanced(vm) {
            #expect(throws: EncodingError.self) { try LuaEncoder().push(Deep(a: [[1], [2, .max]]), onto: vm.stack) }
            try LuaEncoder().push(Deep(a: [[1]]), onto: vm.stack)
            vm.stack.pop()
        }
    }

    @Test func runawayRecursionIsAnErrorNotACrash() throws {
        final class Node: Encodable {
            var next: Node?
        }
        let node = Node()
        node.next = node
        defer { node.next = nil }  // break the cycle so the node is released
        let message = encodingFailure(node)
        #expect(message?.contains("nested more than 512 levels deep") == true)
    }

    /// Pushes onto one VM share its kept encoder: each must encode with its own settings, after a
    /// failed push as after a good one, and let go of its settings' `userInfo` when done.
    @Test func eachPushOnAVMEncodesWithTheSettingsItIsGiven() throws {
        struct Stamp: Encodable { var at = Date(timeIntervalSince1970: 2), deep: [[UInt64]] = [[1]] }
        final class Token: Sendable {}
        let vm = try LuaVM()
        var (milliseconds, seconds) = (LuaEncoder(), LuaEncoder())
        milliseconds.dateEncodingStrategy = .millisecondsSince1970
        seconds.dateEncodingStrategy = .secondsSince1970
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            milliseconds.userInfo[CodingUserInfoKey(rawValue: "token")!] = token
        }
        try expectBalanced(vm) {
            for (encoder, expected) in [(milliseconds, 2_000.0), (seconds, 2.0), (milliseconds, 2_000.0)] {
                #expect(throws: EncodingError.self) { try encoder.push(Stamp(deep: [[1], [.max]]), onto: vm.stack) }
                try encoder.push(Stamp(), onto: vm.stack)
                vm.stack.rawGet(table: -1, field: "at")
                #expect(vm.stack.number(at: -1) == expected)
                vm.stack.pop(2)
            }
        }
        milliseconds.userInfo = [:]
        #expect(weakToken == nil, "the kept encoder let go of the last push's settings")
    }

    /// An `encode(to:)` that pushes onto the same VM (and pops what it pushed) gets an encoder of its
    /// own: the outer push's kept encoder is untouched.
    @Test func aPushInsideAPushLeavesTheOuterOneWhole() throws {
        struct Inner: Encodable { var word = "inner" }
        struct Outer: Encodable {
            let stack: LuaStack
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: LuaCodingKey.self)
                try LuaEncoder().push(Inner(), onto: stack)
                stack.rawGet(table: -1, field: "word")
                let word = stack.string(at: -1)
                stack.pop(2)
                try container.encode(word, forKey: LuaCodingKey(stringValue: "seen"))
                try container.encode([1, 2], forKey: LuaCodingKey(stringValue: "list"))
            }
        }
        let vm = try LuaVM()
        try expectBalanced(vm) {
            try LuaEncoder().push(Outer(stack: vm.stack), onto: vm.stack)
            vm.stack.pushGlobals()
            vm.stack.insert(at: -2)
            vm.stack.rawSet(table: -2, field: "state")
            vm.stack.pop()
        }
        #expect(try vm.run("return state.seen, #state.list, state.list[2]") == ["inner", 2, 2])
    }

    /// A push that fails deep inside nested containers leaves the VM's kept encoder fit for the next
    /// push, onto another thread of the same VM as onto the main one.
    @Test func aPushFailingHalfwayLeavesTheNextOneOnACoroutineWhole() throws {
        struct Leaf: Encodable { var name: String; var id: UInt64 }
        struct Tree: Encodable { var leaves: [String: [Leaf]] }
        let vm = try LuaVM()
        let coroutine = LuaCoroutine(in: vm.stack)
        let bad = Tree(leaves: ["a": [Leaf(name: "x", id: 1), Leaf(name: "y", id: .max)]])
        let good = Tree(leaves: ["b": [Leaf(name: "z", id: 2)]])
        for stack in [coroutine.stack, vm.stack, coroutine.stack] {
            let base = stack.top
            #expect(throws: EncodingError.self) { try LuaEncoder().push(bad, onto: stack) }
            #expect(stack.top == base)
            try LuaEncoder().push(good, onto: stack)
            #expect(stack.top == base + 1)
            #expect(
                try stack.value(at: -1)
                    == .table([
                        "leaves": .table(["b": .table([1: .table(["name": "z", "id": 2])])])
                    ]))
            stack.top = base
        }
    }

    /// The field count a VM's pushes learn for a key type presizes later tables of that type: one
    /// huge table of a key type whose fields vary (keys made at run time) must not make every later
    /// small table of that type as large.
    @Test func oneHugeTableDoesNotPresizeLaterSmallOnesOfItsKeyType() throws {
        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Fields: Encodable {
            var count: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Name.self)
                for i in 0..<count { try container.encode(i, forKey: Name(stringValue: "f\(i)")) }
            }
        }
        let vm = try LuaVM()
        try LuaEncoder().push(Fields(count: 50_000), onto: vm.stack)
        vm.stack.pop()
        try vm.run("collectgarbage(); kept = {}; before = collectgarbage('count')")
        for _ in 0..<20 {
            vm.stack.pushGlobals()
            try LuaEncoder().push(Fields(count: 1), onto: vm.stack)
            vm.stack.rawSet(table: -2, field: "latest")
            vm.stack.pop()
            try vm.run("kept[#kept + 1] = latest; latest = nil")
        }
        let grown = try vm.run("collectgarbage(); return math.floor(collectgarbage('count') - before)")
        guard case .integer(let kilobytes) = grown.first else { Issue.record("no count: \(grown)"); return }
        #expect(kilobytes < 100, "20 one-field tables took \(kilobytes) KB")
    }

    @Test func presizedTablesStillGrowForLaterLargerValues() throws {
        struct Item: Codable, Equatable { var a: Int?; var b: Int?; var c: Int? }
        let items = [Item(a: 1, b: nil, c: nil), Item(a: 1, b: 2, c: 3), Item(a: nil, b: nil, c: nil)]
        #expect(try roundTrip(items) == items)
        #expect(try encodeThenRun(items, "return state[2].c, next(state[3])") == [3, .nil])
    }
}
