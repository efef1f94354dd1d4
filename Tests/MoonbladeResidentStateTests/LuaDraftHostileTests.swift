import MoonbladeLua
import MoonbladeResidentState
import Testing

/// Updaters that push drafts where the property tests rarely go: first writes several levels down,
/// children written after their key was overwritten, pairs while writing, drafts kept in globals
/// across dispatches, and new tables built around drafts.
@Suite("Resident state: hostile updaters against plain copies")
struct LuaDraftHostileTests {
    @Test func firstWritesSeveralLevelsDown() throws {
        try expectSameAsPlainCopies([
            "state.todos[3].tags[2] = 'deep'",
            "state.todos[1].tags[1] = 'p'; state.todos[1].title = 'q'; state.todos[1].tags[2] = 'r'",
            "local t = state.todos[2]; local tags = t.tags; tags[1] = 'first'; t.done = false; state.counter = 9",
            "state.settings.limits.max = state.settings.limits.max; state.todos[2].tags[1] = 'first'",
        ])
    }

    @Test func childrenWrittenAfterTheirKeyWasOverwritten() throws {
        try expectSameAsPlainCopies([
            "local t = state.todos[1]; state.todos[1] = state.todos[2]; t.done = true; t.tags[1] = 'lost'",
            "local s = state.settings; state.settings = { theme = 'x', limits = {} }; s.theme = 'y'; s.limits.n = 1",
            "local s = state.settings; state.settings = nil; s.limits.z = 2; state.settings = s",
            "local l = state.settings.limits; state.settings.limits = {}; l.w = 1; state.settings.limits.v = 2",
            "local t = state.todos[2]; state.todos = {}; t.title = 'gone'; state.todos[1] = t",
        ])
    }

    @Test func tableInsertAndRemoveOnNestedDrafts() throws {
        try expectSameAsPlainCopies([
            "table.insert(state.todos[2].tags, 'n'); table.insert(state.todos[2].tags, 1, 'm')",
            "table.remove(state.todos[1].tags, 1); table.remove(state.todos[3].tags)",
            "table.insert(state.todos[1].tags, 'back'); table.remove(state.todos[2].tags, 1)",
            "table.insert(state.todos, 1, state.todos[3]); table.remove(state.todos); state.todos[1].tags[1] = 'moved'",
            "for i = 1, 5 do table.insert(state.byOwner.ann, i) end; for i = 1, 3 do table.remove(state.byOwner.ann, 1) end",
            "state.byOwner.bob[1] = nil; state.byOwner.bob[1] = 4; table.insert(state.byOwner.bob, 5)",
        ])
    }

    @Test func pairsWhileWriting() throws {
        try expectSameAsPlainCopies([
            "for k, todo in pairs(state.todos) do todo.done = not todo.done; todo.tags[#todo.tags + 1] = tostring(k) end",
            "for name, ids in pairs(state.byOwner) do state.byOwner[name] = { #ids } end",
            "for name, ids in pairs(state.byOwner) do ids[1] = ids[1] + 1; state.byOwner[name] = nil end",
            "state.byOwner.x = { 1 }; for name, ids in pairs(state.byOwner) do table.insert(ids, 2) end",
        ])
    }

    @Test func valuesSetBackAndForth() throws {
        try expectSameAsPlainCopies([
            "state.counter = 5; state.counter = 1; state.counter = 7; state.counter = 1",
            "state.name = nil; state.name = 'home'; state.todos[1].done = true; state.todos[1].done = false",
            "local t = state.todos[1]; state.todos[1] = nil; state.todos[1] = t; t.title = 'same'",
        ])
    }

    @Test func newTablesBuiltAroundDrafts() throws {
        try expectSameAsPlainCopies([
            """
            state.todos[3].done = true
            return { counter = state.counter, todos = { state.todos[3], state.todos[1] }, byOwner = state.byOwner,
                     settings = state.settings, name = state.name }
            """,
            "local wrapped = { todos = state.todos }; wrapped.todos[1].title = 'w'; state.todos = wrapped.todos",
            "return { counter = 2, todos = {}, byOwner = { all = state.byOwner.ann }, settings = { theme = state.settings.theme, limits = {} } }",
        ])
    }

    /// Drafts kept from one dispatch are revoked in the next: putting one back into the state, into
    /// a table the updater made, or returning it raises at the plugin's line, and the state stays
    /// as it was; so does a draft of an updater that failed.
    @Test func draftsKeptInGlobalsCannotBePutBackLater() throws {
        let harness = try ResidentStateHarness(Board.sample)
        harness.commit(try harness.draft("kept_root = state; kept_todo = state.todos[1]; state.todos[1].title = 'A'"))
        #expect(throws: LuaError.self) { try harness.draft("failed_todo = state.todos[3]; failed_todo.title = 'F'; error('no')") }
        let before = try #require(harness.resident.current)
        for (source, line) in [
            ("state.counter = 2\nstate.todos[2] = kept_todo", 3), ("state.todos[1] = failed_todo", 2),
            ("state.settings.limits = kept_root.settings.limits", 2),
        ] {
            let error = #expect(throws: LuaError.self) { _ = try harness.draft(source) }
            #expect(error?.message == "updater.lua:\(line): \(ResidentStateHarness.revokedDraft)", "\(source)")
            #expect(harness.resident.current === before)
        }
        // Returned, or inside a table the updater made, it is met once the updater has returned: the
        // new state's error.
        for source in ["state.todos = { kept_todo }", "state.todos = {}\nstate.todos[1] = kept_todo", "return kept_root"] {
            let error = try #require(throws: LuaNewStateError.self) { _ = try harness.draft(source) }
            #expect(error.error.message == ResidentStateHarness.revokedInNewState)
            #expect(harness.resident.current === before)
        }
        #expect(try harness.update(Board.self, "state.counter = 3").counter == 3)
    }

    /// A child draft whose key was assigned no longer stands for that key, even when the key gets the
    /// child's table back (a view of the same version put there): written later, it changes only
    /// where it is now, as a plain table taken out of its parent would. (The property tests met this
    /// with `table.remove` moving a child down before a view filled its old place.)
    @Test func aChildWhoseKeyGotItsTableBackIsDetached() throws {
        try expectSameAsPlainCopies([
            "local v = current_view(); local moved = state.todos[3]; table.remove(state.todos, 1); state.todos[3] = v.todos[3]; moved.done = true",
            "local v = current_view(); local d = state.todos[1]; state.todos[1] = v.todos[1]; d.done = true; d.tags[1] = 'lost'",
            "local d = state.todos[2]; state.todos[2] = d; d.title = 'kept its place'",
        ])
    }

    /// The iterator `pairs` gives for a draft may be called by hand with anything: a table that is
    /// not the draft is an error at the plugin's line, not a crash.
    @Test func aDraftsPairsIteratorCalledWithAnotherTableIsAnError() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let before = try #require(harness.resident.current)
        let error = #expect(throws: LuaError.self) { _ = try harness.draft("local step = pairs(state.todos)\nstep({}, nil)") }
        #expect(error?.message == "updater.lua:3: the iterator of pairs(draft) needs a state draft, got a table")
        #expect(harness.resident.current === before)
    }

    @Test func floatKeysEqualToIntegersAndOddStrings() throws {
        try expectSameAsPlainCopies([
            "state.byOwner.ann[2.0] = 7",
            "state.byOwner.ann[3.0] = 8",
            "state.todos[1.0].done = true; state.todos[2.0].tags[1.0] = 'f'",
            "state.byOwner.bob[1.0] = nil; state.byOwner.bob[1] = 5",
            "table.insert(state.byOwner.bob, 1.0, 9); state.todos[3.0] = nil",
            "state.byOwner.ann[#state.byOwner.ann + 1.0] = 1",
            "state.byOwner['a\\0b'] = { 1 }; state.byOwner['é'] = { 2 }",
            "state.byOwner['a\\0b'][2] = 2; state.byOwner.a = { 0 }; state.byOwner['é'] = nil",
        ])
    }

    @Test func oddKeysAndValuesFailOnBothOrAgree() throws {
        try expectSameAsPlainCopies(
            [
                "state.byOwner['1'] = { 1 }; state.byOwner['01'] = { 2 }; state.byOwner['-1'] = {}",
                "state.byOwner.ann[0] = 5",
                "state.byOwner.ann[-1] = 5",
                "state.byOwner.ann[1000000] = 1",
                "state.byOwner.ann[1.5] = 1",
                "state.byOwner[true] = { 1 }",
                "state.byOwner[1] = { 1 }",
                "state.byOwner[1] = nil",
                "state.byOwner[2.5] = { 1 }",
                "state.byOwner[2.5] = nil; state.byOwner.ann[1] = 3",
                "state.counter = 0/0",
                "state.settings.limits.max = math.huge",
                "state.settings.limits.max = -math.huge",
                "state.counter = 2^63",
                "state.counter = 3.0",
                "state.byOwner.ann[1] = nil",
                "state.byOwner.ann = { x = 1 }",
                "state.todos[1].tags = {}; state.todos[2].tags = { n = 1 }",
                "state.todos[1].tags = {}",
                "state.name = print",
                "state.name = coroutine.create(function() end)",
                "state.todos[1].extra = coroutine.create(function() end); state.todos[1].more = print",
                "state.settings.limits = state.byOwner",
                "state.counter = '12'",
            ], failing: [1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13, 15, 16, 17, 19, 20, 22, 23])
    }

    @Test func aliasesAndCycles() throws {
        try expectSameAsPlainCopies(
            [
                "state.todos[2] = state.todos[1]; state.todos[2].title = 'both'",
                "state.byOwner.carl = state.byOwner.ann; table.insert(state.byOwner.carl, 9)",
                "state.todos[1].tags = state.todos[1]",
                "state.todos[1] = state",
                "local s = state.settings; s.limits.me = 1; state.settings = nil; state.settings = s",
                "local t = state.todos[1]; state.todos[1] = nil; t.title = 'gone'",
                "local tags = state.todos[1].tags; state.todos[1] = { title = 'new', done = false, tags = {} }; tags[1] = 'old'; state.todos[2].tags = tags",
                "state.settings.limits.max = 1; state.settings = { theme = state.settings.theme, limits = state.settings.limits }",
                "local t = { todo = state.todos[1] }; t.todo.title = 'via'; state.todos[3] = t.todo",
                "local d = state.byOwner.ann; state.byOwner.ann = { 1 }; state.byOwner.ann = d; d[1] = 42",
                // Written from a coroutine the updater runs (and one that fails, caught by resume).
                "local co = coroutine.wrap(function(d) coroutine.yield(); d.counter = 5; d.todos[1].done = true end); co(state); co()",
                "local co = coroutine.create(function() state.counter = 6; error('in co') end); coroutine.resume(co); state.name = 'x'",
            ], failing: [2, 3, 5])
    }

    @Test func theStandardLibraryOnDrafts() throws {
        try expectSameAsPlainCopies([
            "state.counter = select('#', table.unpack(state.todos)) + #state.byOwner.ann",
            "state.name = table.concat(state.todos[3].tags, ',') .. table.concat(state.byOwner.ann, '-', 1, 2)",
            "table.move(state.byOwner.ann, 1, 2, 2)",
            "table.move(state.byOwner.ann, 1, 3, 1, state.byOwner.bob)",
            "table.move(state.todos, 2, 3, 1); state.todos[3] = nil",
            "table.sort(state.byOwner.bob, function(a, b) return a > b end)",
            "local n = 0; for i, t in ipairs(state.todos) do n = n + i; t.title = t.title .. i end; state.counter = n",
            "for k in pairs(state.settings.limits) do state.settings.limits[k] = nil end; state.settings.limits.a = 1",
            "local seen = {}; seen[state.todos[1]] = 1; if seen[state.todos[1]] then state.counter = 50 end",
            "state.counter = (rawequal(state.todos, state.todos) and 1 or 0) + (state.todos == state.todos and 2 or 0)",
            "state.counter = #state.todos; table.insert(state.todos, #state.todos + 1, state.todos[1])",
            "local ok = pcall(table.insert, state.todos, 9, state.todos[1]); state.counter = ok and 1 or 0",
            "state.byOwner.ann = { table.unpack(state.byOwner.bob) }",
            "local u = { table.unpack(state.todos, 1, 2) }; state.todos = u",
        ])
    }

    /// The standard library at its edges: positions out of range, values `concat` cannot join, sorts
    /// that fail, ranges past the end, an error whose value is a draft; the messages a plugin catches
    /// with `pcall` are those of plain tables.
    @Test func theStandardLibraryAtItsEdges() throws {
        try expectSameAsPlainCopies([
            "table.insert(state.byOwner.ann, 3, 9); table.insert(state.byOwner.ann, 1, 0)",
            "state.name = select(2, pcall(table.insert, state.byOwner.ann, 6, 9)) .. #state.byOwner.ann",
            "state.name = select(2, pcall(table.insert, state.byOwner.ann, 0, 9)) .. select(2, pcall(table.insert, state.byOwner.ann, 1, 2, 3))",
            "state.name = tostring(table.remove(state.byOwner.ann, 5)) .. #state.byOwner.ann .. select(2, pcall(table.remove, state.byOwner.ann, 7))",
            "state.name = tostring(table.remove(state.todos[2].tags, 0)) .. tostring(table.remove(state.todos[2].tags))",
            "local p = {}; table.move(state.todos, 1, 3, 1, p); p[1].title = 'z'; state.name = state.todos[1].title; state.todos = p",
            "table.move({ 9, 8, 7 }, 1, 3, 2, state.byOwner.ann); table.move(state.byOwner.ann, 1, 2, 3, state.byOwner.ann)",
            "table.move(state.todos, 1, 3, 2); state.todos[1].title = 'q'",
            "state.name = select(2, pcall(table.move, state.byOwner.ann, 1, 2, math.maxinteger))",
            "state.name = select(2, pcall(table.concat, state.todos)) .. select(2, pcall(table.concat, state.byOwner.ann, ',', 1, 9))",
            "state.counter = select('#', table.unpack(state.byOwner.ann, 1, 4)) * 10 + select('#', table.unpack(state.byOwner.ann, -1, 1))",
            "local a, b, c = table.unpack(state.todos); a.title = 'u'; c.done = true",
            "table.sort(state.todos, function(a, b) return a.title > b.title end); state.todos[1].done = true",
            "state.name = select(2, pcall(table.sort, state.todos)); table.sort(state.todos[3].tags, function(a, b) return a > b end)",
            "state.byOwner.ann = { 3, 'x', 2 }; state.name = select(2, pcall(table.sort, state.byOwner.ann)); state.byOwner.ann = { 1 }",
            "local n = 0; for i in ipairs(state.todos) do n = n + 1; if i == 2 then break end end; state.counter = n",
            "state.byOwner.ann[#state.byOwner.ann] = nil; state.counter = #state.byOwner.ann",
            "local ok, e = pcall(error, state.todos); state.name = tostring(e == state.todos) .. tostring(e[1].title)",
            "local co = coroutine.wrap(function() for _, t in ipairs(state.todos) do coroutine.yield(t) end end); co().title = 'w1'; co().done = false; co().tags[1] = 'w3'",
            "state.name = select(2, pcall(function() state.byOwner[nil] = 1 end)) .. select(2, pcall(function() state.byOwner[0/0] = 1 end))",
        ])
    }

    /// A table the plugin made with a metatable of its own, put in the state, reads back as itself
    /// within the updater, as in a plain table: its `__index` and `__len` work, and writing it through
    /// the state writes it. (Read back as a draft of it, `__index` and `__len` were gone and writes went
    /// to a copy the table never saw.) It is in the new state as plain data.
    @Test func aTableWithAMetatableOfItsOwnReadsBackAsItself() throws {
        try expectSameAsPlainCopies([
            "state.todos[1].tags = setmetatable({}, { __index = function() return 'mt' end }); state.name = state.todos[1].tags.x",
            "local t = setmetatable({ 'a' }, { __len = function() return 5 end }); state.todos[1].tags = t; state.counter = #state.todos[1].tags",
            """
            local t = setmetatable({}, {}); state.todos[2].tags = t; state.todos[2].tags[1] = 'w'
            state.name = tostring(t[1]) .. tostring(state.todos[2].tags == t) .. tostring(rawequal(state.todos[2].tags, t))
            """,
            "state.todos[1].tags[2] = 'next'; state.counter = #state.todos[1].tags + #state.todos[2].tags",
        ])
    }

    @Test func errorsMidwayThenTheNextUpdater() throws {
        try expectSameAsPlainCopies(
            [
                "for i = 1, 50 do state.byOwner.ann[i] = i; state.todos[1].title = 'x' .. i end; error('late')",
                "state.counter = 5; pcall(function() state.counter = 6; state.todos[1].done = true; error('caught') end); state.name = 'after'",
                "table.sort(state.todos, function(a, b) error('in sort') end)",
                "state.todos[1].title = 'ok'; return state.settings",
                "state.todos[1].title = 'ok'; return 5",
                "state.todos[2].title = 'not'; return { counter = 1, todos = {}, byOwner = {}, settings = { theme = 't' } }",
                "state.counter = state.counter + 1",
            ], failing: [0, 2, 3, 4, 5])
    }

    /// A view put back inside a part of itself put back first contains itself, as the
    /// plain table would: the updater fails with the cycle error and the state stays as it was.
    @Test func aWholePutBackInsideItsOwnPartIsACycle() throws {
        let harness = try ResidentStateHarness(Board.sample)
        harness.vm.register("current_view") { [weak resident = harness.resident] stack in
            guard let resident else { return 0 }
            try resident.pushReadOnlyView(onto: stack)
            return 1
        }
        let before = try #require(harness.resident.current)
        let source = "local v = current_view(); state.todos[1].tags = v.settings.limits; state.todos[1].tags.inner = v.settings"
        let error = try #require(throws: LuaNewStateError.self) { _ = try harness.draft(source) }
        #expect(error.error.message.contains("contains itself"), "\(error.error)")
        #expect(harness.resident.current === before)
    }

    /// What raw access and metatables do on a draft, as README says: `rawset` stores into the proxy
    /// and is not in the new state, `rawlen` and `next` see nothing, `setmetatable` raises.
    @Test func rawAccessAndMetatablesOnADraftAreAsDocumented() throws {
        let harness = try ResidentStateHarness(Board.sample)
        let board = try harness.update(
            Board.self,
            """
            rawset(state, "counter", 99)
            rawset(state.todos[1], "title", "raw")
            state.name = tostring(rawlen(state.todos)) .. tostring(next(state.todos)) .. tostring(state.todos[1].title)
            """)
        var expected = Board.sample
        expected.name = "0nilraw"
        #expect(board == expected)
        let error = #expect(throws: LuaError.self) { _ = try harness.draft("state.counter = 3\nsetmetatable(state.todos, {})") }
        #expect(error?.message == "updater.lua:3: cannot change a protected metatable")
    }

}
