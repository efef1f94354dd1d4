import MoonbladeLua
import MoonbladeResidentState
import Testing

/// Draft semantics, case by case: what a Lua updater may do with the state it is given.
@Suite("Resident state: drafts behave as plain tables")
struct LuaDraftTests {
    /// Runs `source` as an updater on `Board.sample` and returns the decoded result.
    func update(_ source: String) throws -> Board {
        try ResidentStateHarness(Board.sample).update(Board.self, source)
    }

    func sample(_ change: (inout Board) -> Void) -> Board {
        var board = Board.sample
        change(&board)
        return board
    }

    @Test func readsReturnValuesAndTheSameChildDraftEachTime() throws {
        let harness = try ResidentStateHarness(Board.sample)
        _ = try harness.draft(
            """
            seen = { state.counter, state.name, state.todos[2].title, state.settings.limits.max,
                     state.settings == state.settings, state.todos[1] == state.todos[1], state.missing }
            """)
        #expect(
            try harness.vm.global("seen")
                == .table([
                    1: .integer(1), 2: .string("home"), 3: .string("b"), 4: .integer(3), 5: .boolean(true), 6: .boolean(true),
                ]))
    }

    @Test func writesChangeFieldsAtAnyDepth() throws {
        let board = try update(
            """
            state.counter = state.counter + 41
            state.todos[3].done = true
            state.settings.limits.max = 9
            state.byOwner.ann[2] = 20
            """)
        #expect(
            board
                == sample {
                    $0.counter = 42
                    $0.todos[2].done = true
                    $0.settings.limits["max"] = 9
                    $0.byOwner["ann"] = [1, 20]
                })
    }

    @Test func lengthPairsAndIpairsSeeTheCurrentValues() throws {
        let harness = try ResidentStateHarness(Board.sample)
        _ = try harness.draft(
            """
            state.todos[4] = { title = "d", done = false, tags = {} }
            local titles, owners = {}, {}
            for i, todo in ipairs(state.todos) do titles[i] = todo.title end
            for name, ids in pairs(state.byOwner) do owners[#owners + 1] = name .. #ids end
            table.sort(owners)
            state.byOwner.bob = nil
            local after = 0
            for _ in pairs(state.byOwner) do after = after + 1 end
            seen = { #state.todos, table.concat(titles, ","), table.concat(owners, ","), after }
            """)
        #expect(try harness.vm.global("seen") == .table([1: .integer(4), 2: .string("a,b,c,d"), 3: .string("ann2,bob1"), 4: .integer(1)]))
    }

    @Test func pairsSkipsFieldsSetToNilDuringTheLoop() throws {
        let board = try update(
            """
            for name in pairs(state.byOwner) do state.byOwner[name] = nil end
            """)
        #expect(board == sample { $0.byOwner = [:] })
    }

    @Test func tableInsertAndRemoveAtTheEndAndInTheMiddle() throws {
        let board = try update(
            """
            table.insert(state.todos, { title = "end", done = true, tags = {} })
            table.insert(state.todos, 2, { title = "second", done = false, tags = {} })
            local removed = table.remove(state.todos, 1)
            table.insert(state.todos[1].tags, removed.title)
            table.remove(state.todos[3].tags)
            """)
        #expect(
            board
                == sample {
                    $0.todos.insert(Chore(title: "second", done: false, tags: ["a"]), at: 1)
                    $0.todos.append(Chore(title: "end", done: true))
                    $0.todos.removeFirst()
                    $0.todos[2].tags.removeLast()
                })
    }

    @Test func tableSortConcatUnpackAndMove() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let board = try harness.update(
            Board.self,
            """
            table.sort(state.todos, function(a, b) return a.title > b.title end)
            state.byOwner.ann = { table.unpack(state.byOwner.ann) }
            table.move(state.byOwner.ann, 1, 2, 2)
            state.name = table.concat(state.todos[1].tags, "+")
            """)
        #expect(
            board
                == sample {
                    $0.todos.reverse()
                    $0.byOwner["ann"] = [1, 1, 2]
                    $0.name = "y+z"
                })
    }

    @Test func fieldsSetToNilAreGone() throws {
        let board = try update("state.name = nil; state.settings.limits.max = nil; state.byOwner.bob = nil")
        #expect(
            board
                == sample {
                    $0.name = nil
                    $0.settings.limits = [:]
                    $0.byOwner["bob"] = nil
                })
    }

    @Test func subtreesAreReplacedMovedAndWrappedInNewTables() throws {
        let board = try update(
            """
            state.settings = { theme = "blue", limits = { max = state.counter } }
            state.todos[1] = state.todos[3]
            state.todos[1].done = true
            state.byOwner = { cat = state.byOwner.ann, dog = { 7 } }
            """)
        #expect(
            board
                == sample {
                    $0.settings = Settings(theme: "blue", limits: ["max": 1])
                    $0.todos[0] = Chore(title: "c", done: true, tags: ["y", "z"])
                    $0.todos[2].done = true  // the same draft sits at both places, as the same table would
                    $0.byOwner = ["cat": [1, 2], "dog": [7]]
                })
    }

    @Test func anUpdaterMayReturnANewTableOrTheDraft() throws {
        let returned = try update(
            """
            return { counter = 5, todos = state.todos, byOwner = {}, settings = state.settings }
            """)
        #expect(returned == Board(counter: 5, todos: Board.sample.todos, settings: Board.sample.settings))
        #expect(try update("state.counter = 2; return state") == sample { $0.counter = 2 })
    }

    @Test func aReturnedTableSharesTheSubtreesItTookFromTheDraft() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        harness.commit(try harness.draft("return { counter = 5, todos = state.todos, byOwner = {}, settings = state.settings }"))
        let after = try #require(harness.resident.current)
        #expect(try harness.share(before, after, at: "todos"))
        #expect(try harness.share(before, after, at: "settings"))
    }

    /// A draft lives as long as its updater (Immer's model): kept past it, any use of it raises at
    /// the line that made it, and the state stays as its updater left it.
    @Test(arguments: [
        "kept.counter = 8", "return kept.counter", "return kept_todo.title", "kept_todo.done = true",
        "return #kept.todos", "for k in pairs(kept) do end",
    ])
    func aDraftKeptPastItsUpdaterIsRevoked(use: String) throws {
        let harness = try ResidentStateHarness(Board.sample)
        harness.commit(try harness.draft("kept = state; kept_todo = state.todos[1]; state.counter = 7"))
        let error = #expect(throws: LuaError.self) { try harness.vm.run(use, chunkName: "later.lua") }
        #expect(error?.message == "later.lua:1: \(ResidentStateHarness.revokedDraft)")
        #expect(try harness.resident.decode(Board.self, of: #require(harness.resident.current)) == sample { $0.counter = 7 })
    }

    @Test func aDraftOfAFailedUpdaterIsRevokedToo() throws {
        let harness = try ResidentStateHarness(Board.sample)
        #expect(throws: LuaError.self) { try harness.draft("kept = state; error('no')") }
        let error = #expect(throws: LuaError.self) { try harness.vm.run("return kept.counter") }
        #expect(error?.message.hasSuffix(ResidentStateHarness.revokedDraft) == true)
    }

    @Test func rawAccessSeesAnEmptyProxy() throws {
        let harness = try ResidentStateHarness(Board.sample)
        _ = try harness.draft(
            """
            rawset(state, "counter", 99)
            seen = { rawget(state, "name") == nil, next(state.todos) == nil, getmetatable(state), state.counter }
            """)
        #expect(try harness.vm.global("seen") == .table([1: .boolean(true), 2: .boolean(true), 3: .string("state draft"), 4: .integer(99)]))
    }

    @Test func writesWithABadKeyRaiseAtThePluginsLine() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let error = #expect(throws: LuaError.self) { _ = try harness.draft("state.todos.x = 1\nstate[0/0] = 1") }
        #expect(error?.message == "updater.lua:3: table index is NaN")
    }

    @Test func aPayloadTheUpdaterStoredIsCopied() throws {
        let harness = try ResidentStateHarness(Board.sample)
        harness.commit(try harness.draft("payload = { theme = 'p', limits = { n = 1 } }; state.settings = payload"))
        try harness.vm.run("payload.theme = 'changed later'; payload.limits.n = 2")
        let board = try harness.resident.decode(Board.self, of: #require(harness.resident.current))
        #expect(board.settings == Settings(theme: "p", limits: ["n": 1]))
    }

    @Test func aStateThatContainsItselfIsAnError() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        for source in ["state.settings.limits.me = state.settings", "local t = {}; t.t = t; state.settings = t"] {
            // Found once the updater returned: the new state's error, not the updater's.
            let error = try #require(throws: LuaNewStateError.self) { _ = try harness.draft(source) }
            #expect(error.error.kind == .runtime)
            #expect(error.error.message == "the new state contains a table that contains itself (a cycle)")
            #expect(harness.resident.current === before)
        }
    }

    @Test func aStateNestedTooDeepIsAnErrorNotACrash() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        for source in [
            "local t = {}; for i = 1, 100000 do t = { t } end; state.settings.limits = t",
            "local d = state.settings; for i = 1, 600 do d.x = {}; d = d.x end",
        ] {
            let error = try #require(throws: LuaNewStateError.self) { _ = try harness.draft(source) }
            #expect(error.error.message == "the new state is nested more than 512 levels deep")
            #expect(harness.resident.current === before)
        }
        #expect(try harness.update(Board.self, "state.counter = 7").counter == 7)  // and drafting goes on
    }

    /// Misuse the C metamethods must turn into errors at the plugin's line, never a crash, with the
    /// resident state untouched and the next draft working.
    @Test func misusedDraftsRaiseAndLeaveTheStateAlone() throws {
        let harness = try ResidentStateHarness(Board.sample)
        harness.commit(
            try harness.draft(
                """
                kept = state.todos
                resume_later = coroutine.wrap(function() local d = state; coroutine.yield(); d.counter = 1 end)
                resume_later()
                """))
        let before = try #require(harness.resident.current)
        for (source, message) in [
            ("local step = pairs(state); step(state, 'no such key')", "invalid key to 'next'"),
            ("table.insert(kept, { title = 'x', done = false, tags = {} })", ResidentStateHarness.revokedDraft),
            ("resume_later()", ResidentStateHarness.revokedDraft),
            ("state.todos[1].tags[nil] = 1", "table index is nil"),
        ] {
            let error = #expect(throws: LuaError.self) { _ = try harness.draft(source) }
            #expect(error?.message.contains(message) == true, "\(source): \(String(describing: error?.message))")
            #expect(harness.resident.current === before)
        }
        #expect(try harness.update(Board.self, "state.counter = 3").counter == 3)
    }

    @Test func aTableSharedWithinThePayloadStaysShared() throws {
        let board = try update("local ids = { 4 }; state.byOwner = { a = ids, b = ids }")
        #expect(board.byOwner == ["a": [4], "b": [4]])
    }

    /// Sequences up to 200,000 items are copied in one go through the stack, longer ones item by item:
    /// both give the same list.
    @Test func longSequencesAreCopiedWhole() throws {
        struct Numbers: Codable, Equatable { var items: [Int] }
        for count in [200_000, 200_001] {
            let harness = try ResidentStateHarness(Numbers(items: Array(1...count)))
            harness.commit(try harness.draft("local n = #state.items"))  // learns it is a sequence
            var expected = Numbers(items: Array(1...count))
            expected.items[4] = 0
            #expect(try harness.update(Numbers.self, "state.items[5] = 0") == expected)
            expected.items[count - 1] = -1
            #expect(try harness.update(Numbers.self, "state.items[#state.items] = -1") == expected)
        }
    }
}
