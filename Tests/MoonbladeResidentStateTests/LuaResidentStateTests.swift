import MoonbladeLua
import MoonbladeResidentState
import Testing

/// Versions, read-only views, structural sharing and transactions.
@Suite("Resident state: versions, views and transactions")
struct LuaResidentStateTests {
    @Test func anUnchangedSubtreeIsTheSameTableInTheNextVersion() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        try harness.update(Board.self, "state.todos[2].done = false")
        let after = try #require(harness.resident.current)
        for shared in ["settings", "settings.limits", "byOwner", "todos.1", "todos.3", "todos.2.tags"] {
            #expect(try harness.share(before, after, at: shared), "\(shared)")
        }
        for changed in ["todos", "todos.2"] {
            #expect(try !harness.share(before, after, at: changed), "\(changed)")
        }
    }

    @Test func writingTheSameValueBackChangesNothing() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        harness.commit(try harness.draft("state.counter = state.counter; state.todos[1] = state.todos[1]; state.settings.theme = 'dark'"))
        #expect(try harness.share(before, #require(harness.resident.current), at: "todos"))
        #expect(try harness.share(before, #require(harness.resident.current), at: "settings"))
    }

    @Test func aDraftThatEndsAsItBeganIsUnchanged() throws {
        let harness = try ResidentStateHarness(Board.sample)
        #expect(try harness.draft("local n = #state.todos; state.counter = state.counter").isUnchanged)
        #expect(try harness.draft("local c = state.counter; state.counter = c + 1; state.counter = c").isUnchanged)
        #expect(try !harness.draft("state.counter = state.counter + 1").isUnchanged)
        #expect(try !harness.draft("state.todos[1].done = not state.todos[1].done").isUnchanged)
        #expect(try !harness.draft("local copy = {}; for k, v in pairs(state) do copy[k] = v end; return copy").isUnchanged)
    }

    /// A version handed back while nothing else holds it becomes the next pending state, object and all;
    /// one still held elsewhere keeps its root and is left alone.
    @Test func aRecycledVersionIsReusedOnlyWhenNobodyHoldsIt() throws {
        let harness = try ResidentStateHarness(Board.sample)
        try harness.update(Board.self, "state.counter = 2")
        let held = try #require(harness.resident.current)
        var handedBack: LuaStateVersion? = held
        harness.resident.recycle(&handedBack)
        #expect(handedBack == nil)
        try harness.update(Board.self, "state.counter = 3")
        #expect(try #require(harness.resident.current) !== held)
        #expect(try harness.read(held, "return state.counter") == [.integer(2)])

        var retired = harness.resident.current
        let retiredID = ObjectIdentifier(try #require(retired))
        try harness.update(Board.self, "state.counter = 4")  // the current version moves on: only `retired` holds it
        harness.resident.recycle(&retired)
        let reused = harness.commit(try harness.draft("state.counter = state.counter + 1"))
        #expect(ObjectIdentifier(reused) == retiredID)
        #expect(try harness.read(reused, "return state.counter") == [.integer(5)])
        #expect(try harness.resident.decode(Board.self, of: reused).counter == 5)
    }

    /// A state Swift code changed is pushed with the tables of the collections it left untouched: they
    /// still have the storage of the values decoded from those tables.
    @Test func aStateSwiftChangedReusesTheTablesOfWhatItLeftUntouched() throws {
        let harness = try ResidentStateHarness(Board.sample)
        var board = try harness.update(Board.self, "state.counter = state.counter + 1")
        let before = try #require(harness.resident.current)
        board.counter += 10
        board.byOwner["ann"]?.append(9)  // copied: the decoded dictionary shares its storage
        let after = try harness.resident.replace(with: board, version: 100)
        #expect(try harness.share(before, after, at: "todos"))
        #expect(try harness.share(before, after, at: "todos.3.tags"))
        #expect(try !harness.share(before, after, at: "byOwner"))
        #expect(try harness.resident.decode(Board.self, of: after) == board)
        // And what Lua sees is the new state, the reused tables included.
        #expect(try harness.update(Board.self, "state.name = #state.todos .. ':' .. state.byOwner.ann[3] .. ':' .. state.counter").name == "3:9:12")
    }

    /// Swift and Lua changes in turn: each version decodes to the state that made it, however its
    /// tables were reused.
    @Test func swiftAndLuaChangesInTurnKeepTheResidentCopyExact() throws {
        let harness = try ResidentStateHarness(Board.sample)
        var expected = Board.sample
        for round in 1...30 {
            switch round % 3 {
            case 0:
                expected.todos[round % expected.todos.count].done.toggle()
                expected.byOwner["r\(round % 4)"] = [round]
            case 1:
                expected.counter += round
            default:
                expected = try harness.update(
                    Board.self, "table.insert(state.todos, { title = 't\(round)', done = false, tags = {} }); state.byOwner.ann = nil")
                continue
            }
            try harness.resident.replace(with: expected, version: UInt64(1_000 + round))
            #expect(try harness.resident.decode(Board.self, of: #require(harness.resident.current)) == expected)
        }
        #expect(try harness.update(Board.self, "state.counter = state.counter") == expected)
    }

    /// A collection of objects is pushed in full every time: its objects may have changed in place.
    @Test func aCollectionOfObjectsIsNeverReused() throws {
        final class Cell: Codable, Equatable {
            var n: Int
            init(n: Int) { self.n = n }
            static func == (a: Cell, b: Cell) -> Bool { a.n == b.n }
        }
        struct Grid: Codable, Equatable { var cells: [Cell] }
        let harness = try ResidentStateHarness(Grid(cells: [Cell(n: 1)]))
        let grid = try harness.update(Grid.self, "state.cells[1].n = 2")
        grid.cells[0].n = 3  // in place: the array's storage is the same
        try harness.resident.replace(with: grid, version: 100)
        #expect(try harness.update(Grid.self, "state.cells[1].n = state.cells[1].n * 10").cells[0].n == 30)
    }

    /// An empty array or dictionary is encoded, never reused: every empty one of a type has the same
    /// storage, so the table found would be another field's, kind marker and all.
    @Test func anEmptyCollectionIsNotTheTableOfAnotherField() throws {
        struct Lists: Codable, Equatable { var a: [Int], b: [Int] }
        struct Kinds: Decodable { var b: TableKindProbe }
        let harness = try ResidentStateHarness(Lists(a: [1], b: [2]))
        let stack = harness.vm.stack
        stack.pushGlobals()
        try stack.pushTableKindLibrary()
        stack.rawSet(table: -2, field: "moonblade")
        stack.pop()
        var lists = try harness.update(Lists.self, "state.a = moonblade.object()")  // an empty list all the same
        lists.b.removeAll()
        let after = try harness.resident.replace(with: lists, version: 100)
        #expect(try harness.resident.decode(Kinds.self, of: after).b.kind == .array)  // as `[]` is pushed
    }

    /// A collection of optional objects is pushed in full every time, as one of objects is.
    @Test func aCollectionOfOptionalObjectsIsNeverReused() throws {
        final class Cell: Codable {
            var n: Int
            init(n: Int) { self.n = n }
        }
        struct Grid: Codable { var cells: [Cell?] }
        let harness = try ResidentStateHarness(Grid(cells: [Cell(n: 1)]))
        let grid = try harness.update(Grid.self, "state.cells[1].n = 2")
        if let cell = grid.cells[0] { cell.n = 3 }  // in place: the array's storage is the same
        try harness.resident.replace(with: grid, version: 100)
        #expect(try harness.update(Grid.self, "state.cells[1].n = state.cells[1].n * 10").cells[0]?.n == 30)
    }

    /// A push that fails after reusing a table leaves the stack and the current version as they were,
    /// and the reused table is still offered to the next push.
    @Test func aPushThatFailsAfterReusingATableChangesNothing() throws {
        struct Ledger: Codable, Equatable { var items: [Int], total: UInt64 }
        let harness = try ResidentStateHarness(Ledger(items: [1], total: 0))
        var ledger = try harness.update(Ledger.self, "state.items[2] = 2")
        let before = try #require(harness.resident.current)
        let top = harness.vm.stack.top
        ledger.total = .max  // past Lua's integers: fails after `items` was pushed
        #expect(throws: EncodingError.self) { try harness.resident.replace(with: ledger, version: 100) }
        #expect(harness.vm.stack.top == top)
        #expect(harness.resident.current === before)
        ledger.total = 3
        let after = try harness.resident.replace(with: ledger, version: 101)
        #expect(try harness.share(before, after, at: "items"))
        #expect(try harness.update(Ledger.self, "state.total = state.total + #state.items") == Ledger(items: [1, 2], total: 5))
    }

    /// Every way Swift code can change a decoded collection in place copies it first (the cache shares
    /// its storage), so none of them is pushed as the old table.
    @Test(arguments: [
        "removeAll(keepingCapacity:)", "reserveCapacity", "withUnsafeMutableBufferPointer", "swapAt",
        "the same item again", "merge", "updateValue",
    ])
    func aCollectionChangedInPlaceIsPushedAsChanged(_ change: String) throws {
        let harness = try ResidentStateHarness(Board.sample)
        var board = try harness.update(Board.self, "state.counter = 2")
        switch change {
        case "removeAll(keepingCapacity:)": board.todos.removeAll(keepingCapacity: true)
        case "reserveCapacity":
            board.todos[1].tags.reserveCapacity(100)
            board.todos[1].tags.append("new")
        case "withUnsafeMutableBufferPointer": board.todos.withUnsafeMutableBufferPointer { $0[0].title = "z" }
        case "swapAt": board.todos.swapAt(0, 2)
        case "the same item again": board.byOwner["ann"]![0] = 1
        case "merge": board.settings.limits.merge(["min": 1]) { $1 }
        default: board.settings.limits.updateValue(4, forKey: "max")
        }
        let after = try harness.resident.replace(with: board, version: 100)
        #expect(try harness.resident.decode(Board.self, of: after) == board)
        // Lua reads the changed state too, and a Lua change on top of it decodes right.
        #expect(
            try harness.update(Board.self, "state.name = tostring(#state.todos)")
                == {
                    var expected = board
                    expected.name = "\(board.todos.count)"
                    return expected
                }())
    }

    @Test func aPendingStateCommittedTwiceGivesTwoVersionsWithTheirOwnStamps() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let pending = try harness.draft("state.counter = 41")
        let first = harness.resident.commit(pending, version: 7)
        let second = harness.resident.commit(pending, version: 8)
        #expect(first !== second)
        #expect((first.version, second.version) == (7, 8))
        #expect(harness.resident.current === second)
        #expect(try harness.share(first, second, at: "todos"))
        #expect(try harness.resident.decode(Board.self, of: first).counter == 41)
    }

    @Test func theOldVersionIsUnchangedAfterACommitAndAfterADiscard() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        _ = try harness.draft("state.counter = 100; state.todos[1].title = 'discarded'")
        #expect(harness.resident.current === before)
        try harness.update(Board.self, "state.counter = 2; state.todos[1].title = 'kept'")
        #expect(try harness.resident.decode(Board.self, of: before) == Board.sample)
        #expect(try harness.read(before, "return state.counter, state.todos[1].title") == [.integer(1), .string("a")])
        let after = try #require(harness.resident.current)
        #expect(after.version == 1)
        #expect(try harness.read(after, "return state.counter, state.todos[1].title") == [.integer(2), .string("kept")])
    }

    /// The machinery keeps one draft's change records at a time: a pending state decoded after a later
    /// draft cannot be patched from them, and is read in full, to the same value.
    @Test func aPendingStateDecodedAfterALaterDraftIsStillRight() throws {
        let harness = try ResidentStateHarness(Board.sample)
        _ = try harness.resident.decode(Board.self, of: #require(harness.resident.current))
        let first = try harness.draft("state.todos[2].title = 'first'; state.byOwner.ann[1] = 7")
        let second = try harness.draft("state.todos[3].done = true; state.byOwner.bob = nil")
        var expected = Board.sample
        expected.todos[1].title = "first"
        expected.byOwner["ann"] = [7, 2]
        #expect(try harness.resident.decode(Board.self, of: first) == expected)
        expected = Board.sample
        expected.todos[2].done = true
        expected.byOwner["bob"] = nil
        #expect(try harness.resident.decode(Board.self, of: second) == expected)
    }

    @Test func aRaiseHalfwayLeavesTheResidentStateUntouched() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        let error = #expect(throws: LuaError.self) {
            _ = try harness.draft("state.counter = 50\ntable.remove(state.todos, 1)\nstate.settings.theme = 'x'\nerror('halfway')")
        }
        #expect(error?.message == "updater.lua:5: halfway")
        #expect(harness.resident.current === before)
        #expect(
            try harness.update(Board.self, "state.name = state.name .. '!'")
                == {
                    var board = Board.sample
                    board.name = "home!"
                    return board
                }())
    }

    @Test func theInstructionBudgetAndTheMemoryLimitLeaveItUntouched() throws {
        let harness = try ResidentStateHarness(
            Board.sample, configuration: LuaVM.Configuration(instructionBudget: 100_000, hookInterval: 100))
        let before = try #require(harness.resident.current)
        let budget = #expect(throws: LuaError.self) {
            _ = try harness.draft("state.counter = 3\nwhile true do state.counter = state.counter + 1 end")
        }
        #expect(budget?.kind == .limit)
        harness.vm.memoryLimit = harness.vm.memoryInUse + 200_000
        let memory = #expect(throws: LuaError.self) {
            _ = try harness.draft("state.counter = 3\nfor i = 1, 1e7 do state.todos[i] = { title = ('x'):rep(i % 50), done = true } end")
        }
        #expect(memory?.kind == .memory)
        harness.vm.memoryLimit = nil
        #expect(harness.resident.current === before)
        #expect(try harness.resident.decode(Board.self, of: before) == Board.sample)
    }

    @Test func aDecodingErrorNamesTheFullPathAndCommitsNothing() throws {
        let harness = try ResidentStateHarness(Board.sample)
        _ = try harness.resident.decode(Board.self, of: try #require(harness.resident.current))  // cached: the error comes from a patch
        try expectDecodingFailures(
            harness,
            [
                ("state.todos[3].done = 'yes'", "state.todos[3].done: expected Bool, found string \"yes\""),
                ("state.byOwner.ann[2] = 'two'", "state.byOwner.ann[2]: expected Int, found string \"two\""),
                ("state.todos[5] = state.todos[1]", "state.todos: expected a sequence, found a hole at [4]"),
                ("state.settings = { limits = {} }", "state.settings: required key \"theme\" is missing"),
            ])
    }

    /// Drafts each source, expects decoding its state as a `Board` to fail with its message, and the
    /// current version to stay.
    private func expectDecodingFailures(
        _ harness: ResidentStateHarness, _ cases: [(source: String, message: String)],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try #require(harness.resident.current)
        for (source, message) in cases {
            let pending = try harness.draft(source)
            do {
                _ = try harness.resident.decode(Board.self, of: pending)
                Issue.record("\(source) decoded", sourceLocation: sourceLocation)
            } catch let error as DecodingError {
                #expect(LuaDecoder.describe(error) == message, sourceLocation: sourceLocation)
            }
            #expect(harness.resident.current === before, sourceLocation: sourceLocation)
        }
    }

    /// A changed struct whose older table was decoded as the same type is checked at the keys its
    /// change record lists, not walked: a key that is no string is an error there as anywhere.
    @Test func aKeyThatIsNoStringIsAnErrorInAChangedStruct() throws {
        let harness = try ResidentStateHarness(Board.sample)
        try harness.update(Board.self, "state.settings.theme = 'warm'")  // `settings` is now a decoded `Settings`
        try expectDecodingFailures(
            harness,
            [
                ("state[1] = 'x'", "state: expected a table with string keys, found key [1]"),
                ("state.counter = 2; state[true] = 1", "state: expected a table with string keys, found key [true]"),
                ("state.settings[2.5] = 1", "state.settings: expected a table with string keys, found key [2.5]"),
                (
                    "state.settings.theme = 'y'; state.settings[state.todos] = 1",
                    "state.settings: expected a table with string keys, found key [table]"
                ),
                ("state.todos[1][1] = 'z'", "state.todos[1]: expected a table with string keys, found key [1]"),
            ])
        // Written and removed again, such a key is no key of the table.
        #expect(try harness.update(Board.self, "state[1] = 'x'; state.counter = 5; state[1] = nil").counter == 5)
        let settings = try harness.update(Board.self, "state.settings[1] = 'x'; state.settings.theme = 'z'; state.settings[1] = nil").settings
        #expect(settings == Settings(theme: "z", limits: ["max": 3]))
    }

    /// A version pushed from another type vouches for nothing: decoded as a struct, a draft of it is
    /// checked in full.
    @Test func aDraftOfAVersionOfAnotherTypeIsCheckedInFull() throws {
        struct Named: Decodable { var name: String }
        let harness = try ResidentStateHarness([1: "one"] as [Int: String])
        let pending = try harness.draft("state.name = 'x'")
        do {
            _ = try harness.resident.decode(Named.self, of: pending)
            Issue.record("a table with an integer key decoded as a struct")
        } catch let error as DecodingError {
            #expect(LuaDecoder.describe(error) == "state: expected a table with string keys, found key [1]")
        }
    }

    @Test func readOnlyViewsReadLikeTablesAndRefuseWrites() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let version = try #require(harness.resident.current)
        let values = try harness.read(
            version,
            """
            local titles = {}
            for i, todo in ipairs(state.todos) do titles[i] = todo.title end
            local owners = 0
            for _, ids in pairs(state.byOwner) do owners = owners + #ids end
            return #state.todos, table.concat(titles), owners, state.todos == state.todos, state.settings.limits.max
            """)
        #expect(values == [.integer(3), .string("abc"), .integer(3), .boolean(true), .integer(3)])
        for (source, message) in [
            ("state.todos = nil", "reader.lua:2: state is read-only here (field \"todos\")"),
            ("state.todos[1].done = true", "reader.lua:2: state is read-only here (field \"done\")"),
            ("table.insert(state.todos, {})", "state is read-only here (key 4)"),
        ] {
            let error = #expect(throws: LuaError.self) { _ = try harness.read(version, source) }
            #expect(error?.message.hasSuffix(message) == true, "\(error?.message ?? "")")
        }
        #expect(try harness.resident.decode(Board.self, of: version) == Board.sample)
    }

    @Test func aNonTableStateWorksToo() throws {
        let harness = try ResidentStateHarness(41)
        #expect(try harness.update(Int.self, "return state + 1") == 42)
        #expect(try harness.update(Int.self, "") == 42)
        #expect(try harness.read(#require(harness.resident.current), "return state") == [.integer(42)])
    }

    @Test func draftingBeforeAnyStateIsAnError() throws {
        let vm = try LuaVM()
        let resident = try LuaResidentState(vm: vm)
        let updater = try vm.load("return ...", chunkName: "updater.lua")
        let error = #expect(throws: LuaError.self) { _ = try resident.apply(updater, on: vm.stack) { _ in 0 } }
        #expect(error?.message == "the resident state has no version yet")
        #expect(vm.stack.top == 0)
    }
}

/// The kind the decoder tells of a table (LuaTableKind), for tests of what a push marked.
private struct TableKindProbe: Decodable {
    let kind: LuaTableKind?
    init(from decoder: any Decoder) throws {
        kind = (decoder as? any LuaTableKindDecoding)?.tableKind
    }
}
