import MoonbladeLua
import MoonbladeResidentState
import PropertyBased
import Testing

/// Updaters that reuse one table at several places or move it between keys and versions: aliases,
/// tables moved by `table.insert/remove/move/sort`, local references kept while their parent or
/// grandparent is replaced, views put back, tables the updater made holding drafts.
/// Each must end where the same code on a plain deep copy ends (`expectSameAsPlainCopies`).
@Suite("Resident state: aliased and moved tables against plain copies")
struct LuaDraftAliasingTests {
    @Test func oneTableAtSeveralKeys() throws {
        try expectSameAsPlainCopies([
            "state.todos[2] = state.todos[1]; state.todos[1].tags[1] = 'a1'",
            "state.todos[2].title = 'two'",
            "local a = state.todos[1]; state.todos[2] = a; state.todos[1] = { title = 'n', done = false, tags = {} }; a.title = 'moved'",
            "state.todos[1].tags = state.todos[2].tags; state.todos[2].tags[1] = 'shared'; state.todos[1].tags[2] = 'both'",
            "local tags = state.todos[3].tags; state.todos[1].tags = tags; state.todos[3] = nil; tags[1] = 'after'",
            "state.byOwner.c = state.byOwner.ann; table.insert(state.byOwner.c, 7); table.insert(state.byOwner.ann, 8); state.byOwner.ann = nil; table.insert(state.byOwner.c, 9)",
            "state.todos[3] = state.todos[1]; state.todos[2] = state.todos[1]; table.remove(state.todos, 1); state.todos[1].done = true",
            "state.byOwner.bob, state.byOwner.c = state.byOwner.c, state.byOwner.bob; state.byOwner.bob[1] = 0",
        ])
    }

    @Test func tablesMovedByTheTableLibrary() throws {
        try expectSameAsPlainCopies([
            "local a, b = state.todos[1], state.todos[2]; state.todos[1], state.todos[2] = b, a; a.title = 'A'; b.tags[1] = 'B'",
            "local a, b = state.todos[1], state.todos[2]; a.done = true; b.done = false; state.todos[1] = b; state.todos[2] = a; a.title = 'A2'",
            "local first = state.todos[1]; table.move(state.todos, 2, 3, 1); state.todos[3] = first; first.tags[1] = 'rot'",
            "local t1 = state.todos[1]; table.sort(state.todos, function(a, b) return a.title > b.title end); t1.title = 'z'; state.todos[1].done = true",
            "local olds = { state.todos[1], state.todos[2], state.todos[3] }; table.insert(state.todos, 1, { title = 'f', done = false, tags = {} }); for i, t in ipairs(olds) do t.title = t.title .. i end",
            "local r = table.remove(state.todos, 2); r.title = 'removed'; state.todos[3] = r",
            "table.insert(state.todos, table.remove(state.todos, 1)); state.todos[#state.todos].done = true",
            "local last = state.todos[#state.todos]; table.move(state.todos, 1, #state.todos - 1, 2); state.todos[1] = last; last.tags[1] = 'front'; state.todos[2].tags[1] = 'second'",
            "local t = state.todos[2]; table.remove(state.todos, 1); table.insert(state.todos, 1, t); t.title = 'twice'",
        ])
    }

    @Test func localReferencesKeptWhileTheirParentIsReplaced() throws {
        try expectSameAsPlainCopies([
            // Collected between the read and the write: only the locals hold the moved parts.
            "local tags = state.todos[1].tags; state.todos[1] = state.todos[2]; collectgarbage(); collectgarbage(); tags[1] = 'gc'; state.todos[3].tags = tags",
            "local todos = state.todos; local t = todos[1]; state.todos = { todos[2] }; t.title = 'stale'; todos[2].done = true",
            "local s = state.settings; local l = s.limits; state.settings = { theme = 'n', limits = l }; l.max = 9; s.theme = 'old'",
            "local s = state.settings; state.settings = nil; state.settings = s; s.limits.a = 1",
            "local t = state.todos[1]; state.todos = { t }; state.todos[1].tags[1] = 'via fresh'; t.tags[2] = 'via local'",
            "local t = state.todos[1]; state.todos[1] = state.todos[1]; state.todos[1] = { title = 'x', done = true, tags = {} }; state.todos[2] = t; t.done = false",
            "local tags = state.todos[1].tags; local t = state.todos[1]; state.todos = {}; tags[1] = 'gone'; t.title = 'gone'; state.todos[1] = t",
            "local l = state.settings.limits; state.settings = { theme = 'a', limits = {} }; state.settings = { theme = 'b', limits = l }; l.z = 26",
        ])
    }

    @Test func writesSetBackToTheBaseThenWrittenBelow() throws {
        try expectSameAsPlainCopies([
            "v = current_view()",
            "local t = state.todos[1]; t.done = true; state.todos[1] = v.todos[1]; state.todos[1].title = 'again'",
            "v = current_view()",
            "for i = 1, 3 do local t = state.todos[2]; t.done = not t.done; state.todos[2] = v.todos[2] end; state.todos[2].tags[1] = 'x'",
            "v = current_view()",
            "local t = state.todos[3]; state.todos[3] = state.todos[1]; state.todos[3] = v.todos[3]; t.title = 'lost'; state.todos[3].tags[3] = 'kept'",
            "v = current_view()",
            "state.settings.limits.max = 1; state.settings = v.settings; state.settings.limits.min = 2; state.settings.limits.max = nil; state.settings.theme = 't'",
        ])
    }

    /// A view put in is a snapshot (README): each one here is written through the state only after
    /// its last use, as a plain copy put in would change with the state.
    @Test func viewsPutIntoTheState() throws {
        try expectSameAsPlainCopies([
            "v0 = current_view(); state.todos[1].title = 'changed'",
            "state.todos[2] = v0.todos[1]; state.todos[2].done = true",
            "local live = state.todos[3]; state.todos[3] = v0.todos[3]; live.done = not live.done",
            "return { counter = 0, todos = { v0.todos[2], v0.todos[3] }, byOwner = v0.byOwner, settings = v0.settings }",
            "local v = current_view(); state.settings = v.settings; state.settings.limits.k = 1; state.byOwner.ann = v.byOwner.bob; table.insert(state.byOwner.ann, 4)",
            "local now = current_view(); state.todos[1] = now.todos[2]; state.todos[2] = now.todos[1]; state.todos[1].tags[1] = 'swapped'",
        ])
    }

    /// A view put at several places in one updater is one table there, as a plain table put there
    /// twice is: written through one place, it changes at every place (the view itself does not).
    @Test func aViewPutAtSeveralPlacesIsOneTableThere() throws {
        try expectSameAsPlainCopies([
            "local v = current_view(); state.byOwner.c = v.byOwner.ann; state.byOwner.d = v.byOwner.ann; table.insert(state.byOwner.c, 9)",
            "local v = current_view(); state.todos[2] = v.todos[1]; state.todos[3] = v.todos[1]; state.todos[2].done = true; state.todos[3].tags[2] = 'both'",
        ])
    }

    /// So are a view and a part of it put at two places: the part stands for the table below the
    /// view's.
    @Test func aViewAndAPartOfItPutAtTwoPlacesAreOneTableThere() throws {
        try expectSameAsPlainCopies([
            "local v = current_view(); state.todos[1] = v.todos[3]; state.todos[2].tags = v.todos[3].tags; state.todos[2].tags[1] = 'both'"
        ])
    }

    /// A view and its parts put back in either order, parts of parts, a part read before its whole.
    @Test func aViewAndItsPartsInEitherOrder() throws {
        try expectSameAsPlainCopies([
            "local v = current_view(); state.todos[2].tags = v.todos[3].tags; state.todos[1] = v.todos[3]; state.todos[1].tags[1] = 'part first'",
            "state.deep = { a = { x = { 1, 2 }, y = { 3 } }, b = { z = {} } }",
            "local v = current_view(); state.deep.b.z = v.deep.a.x; state.deep.c = v.deep.a; state.deep.c.x[3] = 3; state.deep.b.y = v.deep.a.y; state.deep.c.y[2] = 4",
            "local v = current_view(); local x = v.deep.c.x; state.deep.a = v.deep.c; state.deep.b.z = x; state.deep.b.z[1] = 0; state.deep.a.y[1] = 1",
            "local v = current_view(); state.deep.b.z = v.deep.a.x; state.deep = v.deep; state.deep.a.x[2] = 22",
            // Written through the part only, the whole never read; then the part put into a draft moved
            // away before the view's whole takes its key.
            "local v = current_view(); state.todos[2].tags = v.todos[1].tags; state.todos[3] = v.todos[1]; state.todos[2].tags[1] = 'through the part'",
            "state.todos[3] = state.todos[1]; local v = current_view(); state.todos[1].tags = v.todos[1].tags; state.todos[1] = v.todos[1]; state.todos[3].tags[2] = 'moved'",
            // A part read from a view of an older table holding it, then from the newer one.
            "local v = current_view(); seen = #v.todos[3].tags",
            "state.todos[3].title = 'newer'",
            "local v = current_view(); state.todos[1] = v.todos[3]; state.todos[2].tags = v.todos[3].tags; state.todos[2].tags[1] = 'newer both'",
        ])
    }

    @Test func pairsWhileMovingTables() throws {
        try expectSameAsPlainCopies([
            "for i, t in pairs(state.todos) do state.todos[i] = state.todos[#state.todos - i + 1] end",
            "for k, v in pairs(state.byOwner) do state.byOwner[k] = nil; v[1] = 0 end; state.byOwner.n = { 1 }",
            "for k, v in pairs(state.byOwner) do state.byOwner[k] = v; table.insert(v, 1) end",
            "for i, t in ipairs(state.todos) do if i == 1 then table.remove(state.todos, 1) end; t.done = true end",
            "for i, t in pairs(state.todos) do t.tags = state.todos[1].tags; t.tags[#t.tags + 1] = tostring(i) end",
        ])
    }

    @Test func errorsCaughtMidwayThroughMoves() throws {
        try expectSameAsPlainCopies([
            "local a = state.byOwner.ann; pcall(function() a[1] = 10; state.byOwner.ann = nil; error('x') end); a[2] = 20",
            "pcall(function() state.todos[1].tags[1] = 'e'; state.todos[1].tags[nil] = 1 end); state.todos[1].tags[2] = 'f'",
            "local t = state.todos[2]; pcall(function() table.insert(state.todos, 1, t); error('x') end); t.title = 'shifted'",
            "local t = state.todos[1]; pcall(table.sort, state.todos, function(a, b) if a == t then error('s') end; return a.title < b.title end); t.done = true",
            "for i = 4, 12 do state.todos[i] = { title = tostring(i % 5), done = false, tags = {} } end",
            "local t = state.todos[2]; local ok = pcall(table.sort, state.todos, function() return true end); t.title = 'after ' .. tostring(ok)",
        ])
    }

    @Test func tablesTheUpdaterMadeHoldingDrafts() throws {
        try expectSameAsPlainCopies([
            "local box = { inner = { t = state.todos[1] } }; state.todos[2] = box.inner.t; box.inner.t.title = 'boxed'",
            "local list = { state.todos[3], state.todos[1] }; state.todos = list; list[1].tags[1] = 'l'; table.insert(list, state.todos[2])",
            "local fresh = { title = 'f', done = false, tags = state.todos[1].tags }; state.todos[2] = fresh; state.todos[2].tags[1] = 'via fresh'; fresh.tags[2] = 'again'",
            "local f = { title = 'f', done = false, tags = {} }; state.todos[1] = f; state.todos[2] = f; f.title = 'g'; state.todos[1].tags[1] = 'h'",
            "g = { title = 'g', done = true, tags = { state.todos[1].title } }; state.todos[1] = g",
            "state.todos[2] = g; g.title = 'later'; state.todos[1].title = 'resident'",
            "local t = state.todos[1]; t.title = 'r'; return { counter = 1, todos = { t, state.todos[2], t }, byOwner = state.byOwner, settings = state.settings }",
            "local r = { counter = state.counter, todos = state.todos, byOwner = {}, settings = state.settings }; state.todos[1].done = true; r.todos[2].done = true; return r",
        ])
    }

    @Test func coroutinesHoldingChildrenAcrossMoves() throws {
        try expectSameAsPlainCopies([
            "local co = coroutine.wrap(function() local t = state.todos[1]; coroutine.yield(); t.title = 'co' end); co(); state.todos[1] = state.todos[2]; co()",
            "local co = coroutine.wrap(function() local t = state.todos[1]; coroutine.yield(); t.title = 'co2' end); co(); table.insert(state.todos, 1, { title = 'n', done = false, tags = {} }); co()",
        ])
    }

    /// Four levels below the root: children read before and after a grandparent is replaced,
    /// written through stale locals, moved between branches.
    @Test func deepPathsWithGrandparentsReplaced() throws {
        try expectSameAsPlainCopies([
            "state.deep = { a = { x = { 1, 2 }, y = { 3 } }, b = { z = {} } }",
            "local x = state.deep.a.x; local a = state.deep.a; state.deep = { a = a, b = { z = x } }; x[3] = 3; a.y[2] = 4",
            "local y = state.deep.a.y; state.deep.a = nil; y[1] = 30; state.deep.b.y = y; table.insert(state.deep.b.z, 1, 0)",
            "local d = state.deep; local z = d.b.z; state.deep = nil; z[1] = 9; state.deep = d; d.b.w = z",
            "local b = state.deep.b; b.z = b.y; b.y = nil; b.z[#b.z + 1] = 5; state.deep.c = { q = b.w }; b.w = nil; state.deep.c.q[1] = 7",
            "state.deep.c.q = state.deep.b.z; state.deep.b.z[1] = 100; state.deep.b = { z = state.deep.c.q }; state.deep.c.q[2] = 200",
            "v = current_view()",
            "local z = state.deep.b.z; state.deep.b = v.deep.b; z[1] = 0; state.deep.b.z[2] = 2; state.deep.e = v.deep.c",
        ])
    }

    /// A view of an older version or of the current one returned as the new state.
    @Test func viewsReturned() throws {
        try expectSameAsPlainCopies([
            "old = current_view(); state.todos[1].title = 'then'",
            "state.counter = 5; table.remove(state.todos, 1)",
            "return current_view()",
            "state.name = 'lost'; return old",
            "local t = state.todos[2]; state.counter = 7; return { counter = old.counter, todos = { t, old.todos[3] }, byOwner = old.byOwner, settings = state.settings }",
        ])
    }

    /// One table decoded as several types: empty at an array and a dictionary, then filled.
    @Test func oneTableAtPlacesOfDifferentTypes() throws {
        try expectSameAsPlainCopies(
            [
                "state.byOwner.e = {}; state.settings.limits = state.byOwner.e; state.todos[1].tags = state.byOwner.e",
                "state.byOwner.e[1] = 5",
                "state.settings.limits = state.todos[2].tags",
                "state.todos[2].tags = state.settings.limits; state.byOwner.f = state.settings.limits",
                "state.settings.limits.k = 1",
                "state.byOwner.g = state.todos[1].tags; state.todos[1].tags[1] = 'now strings'",
            ], failing: [5])
    }

    @Test func movesThatFailToDecodeThenTheNextUpdater() throws {
        try expectSameAsPlainCopies(
            [
                "table.insert(state.todos, 1, state.todos[3]); state.counter = 'x'",
                "table.insert(state.todos, 1, state.todos[3]); state.todos[2].title = 'moved'",
                "state.todos[2] = state.todos[1]; state.todos[1].done = 'no'",
                "table.remove(state.todos, 1); state.todos[1].tags[1] = 'after fail'",
                "state.byOwner.x = state.byOwner.ann; state.byOwner.ann[1] = 'bad'",
                "state.byOwner.x = state.byOwner.ann; state.byOwner.ann[1] = 5",
            ], failing: [0, 2, 4])
    }
}

/// One random statement of an updater that holds parts of the state in locals (`r[1...3]`) and moves
/// tables between keys; `p`/`q` are positions, `i` a local's slot, `s` a key or title.
struct AliasingStep: CustomStringConvertible {
    var kind: Int, p: Int, q: Int, i: Int, s: String, n: Int

    var description: String {
        let todo = "state.todos[\(p)]", ref = "r[\(i)]"
        return switch kind {
        // Hold a part in a local.
        case 0: "\(ref) = \(todo)"
        case 1: "\(ref) = \(todo) and \(todo).tags"
        case 2: "\(ref) = state.byOwner[\"\(s)\"]"
        case 3: "\(ref) = state.settings.limits"
        // Write through a local (a Chore, an array, a dictionary), wherever it is now.
        case 4: "if type(\(ref)) == 'table' and \(ref).done ~= nil then \(ref).done = not \(ref).done; \(ref).title = \(ref).title .. \"\(s)\" end"
        case 5: "if type(\(ref)) == 'table' and \(ref).done ~= nil then table.insert(\(ref).tags, \"\(s)\") end"
        case 6: "if type(\(ref)) == 'table' and \(ref).done == nil and #\(ref) > 0 then \(ref)[#\(ref)] = \(ref)[1] end"
        case 7: "if type(\(ref)) == 'table' and \(ref).done == nil and #\(ref) > 0 then table.remove(\(ref), 1) end"
        case 8: "if type(\(ref)) == 'table' and \(ref).done == nil and \(ref).max == nil then \(ref)[#\(ref) + 1] = \(ref)[1] end"
        case 9: "if type(\(ref)) == 'table' and \(ref).done == nil then \(ref).max = \(n) end"  // a limits write; an array fails on both
        // Put a local back somewhere.
        case 10: "if type(\(ref)) == 'table' and \(ref).done ~= nil and \(p) <= #state.todos + 1 then \(todo) = \(ref) end"
        case 11: "if type(\(ref)) == 'table' and \(ref).done == nil and \(ref).max == nil and \(todo) then \(todo).tags = \(ref) end"
        case 12: "if type(\(ref)) == 'table' and \(ref).done == nil and \(ref).max == nil then state.byOwner[\"\(s)\"] = \(ref) end"
        case 13: "if type(\(ref)) == 'table' and \(ref).done == nil and \(ref).max ~= nil then state.settings.limits = \(ref) end"
        // Move tables inside the state.
        case 14: "if \(max(p, q)) <= #state.todos then \(todo) = state.todos[\(q)] end"
        case 15: "if \(p) <= #state.todos + 1 and \(q) <= #state.todos then table.insert(state.todos, \(p), state.todos[\(q)]) end"
        case 16: "if \(p) <= #state.todos then table.remove(state.todos, \(p)) end"
        case 17: "if #state.todos >= \(p + q - 1) then table.move(state.todos, 1, \(p), \(q)) end"
        case 18: "table.sort(state.todos, function(a, b) return a.title < b.title end)"
        case 19:
            "if \(p) <= #state.todos and \(q) <= #state.todos then state.todos[\(p)], state.todos[\(q)] = state.todos[\(q)], state.todos[\(p)] end"
        case 20: "state.byOwner[\"\(s)\"] = state.byOwner.ann"
        case 21: "if state.byOwner[\"\(s)\"] then table.insert(state.byOwner[\"\(s)\"], \(n)) end"
        case 22: "state.byOwner[\"\(s)\"] = nil"
        // Replace a parent or grandparent of what the locals hold; tables the updater makes around drafts.
        case 23: "local l = {}; for k = #state.todos, 1, -1 do l[#l + 1] = state.todos[k] end; state.todos = l; made_todos = true"
        case 24: "if \(todo) then \(todo) = { title = \"\(s)\", done = \(todo).done, tags = \(todo).tags }; made_todo = true end"
        case 25: "state.settings = { theme = \"\(s)\", limits = state.settings.limits }"
        case 26: "if \(p) <= #state.todos + 1 then \(todo) = { title = \"\(s)\", done = false, tags = { \"\(s)\" } }; made_todo = true end"
        case 27: "state.todos = { table.unpack(state.todos) }; made_todos = true"
        // Views: one put per updater: a view is one per table, and the state may hold one table at
        // two places, which a plain copy does not; never into a table the updater made (it stays a
        // view, and the state gets what it shows).
        case 30:
            "if not viewed and not made_todos and \(q) <= #state.todos and \(p) <= #state.todos + 1 then viewed = true; \(todo) = current_view().todos[\(q)] end"
        case 31: "if not viewed then viewed = true; state.settings = current_view().settings end"
        // Errors caught midway, and returning a new table.
        case 32: Self.caught("if \(todo) then \(todo).title = \"\(s)\"; table.remove(state.todos, 1) end")
        case 33: "do local todos = state.todos; return { counter = \(n), todos = todos, byOwner = state.byOwner, settings = state.settings } end"
        case 34: "if \(todo) then \(todo).tags = \(todo).tags; \(todo).tags[1] = \"\(s)\" end"
        // (Views of older versions are left to the scenarios: a view is one per table, shared by
        // every version holding that table, which a plain copy per version cannot model.)
        case 35: "\(ref) = state.deep"
        case 36:
            "if not viewed then viewed = true; local v = current_view(); state.byOwner[\"\(s)\"] = v.byOwner.ann; state.byOwner.bob = v.byOwner.ann end"
        case 39:
            Self.caught(
                "if \(p) <= #state.todos then local t = table.remove(state.todos, \(p)); t.title = \"\(s)\"; state.todos[#state.todos + 1] = t end")
        case 40:
            "if \(ref) ~= nil then local todos = { \(ref), \(todo) }; return { counter = \(n), todos = todos, byOwner = state.byOwner, settings = state.settings } end"
        case 41: "for k, t in pairs(state.todos) do if k == \(p) then state.todos[k] = state.todos[\(q)] or t end; t.done = not t.done end"
        case 42: "local t = \(todo); if t then \(todo) = nil; \(todo) = t; t.tags[#t.tags + 1] = \"\(s)\" end"
        case 43:
            "\(ref) = \(todo) and \(todo).tags; if \(todo) then \(todo) = { title = \"\(s)\", done = true, tags = { \"\(s)\" } }; made_todo = true end"
        // Four levels deep: `deep[s].x` is an array of numbers; branches swapped, aliased, replaced.
        case 44: "state.deep = state.deep or { a = { x = { \(n) } }, b = { x = {}, y = { 1 } } }"
        case 45: "\(ref) = state.deep and state.deep[\"\(s)\"]"
        case 46: "\(ref) = state.deep and state.deep[\"\(s)\"] and state.deep[\"\(s)\"].x"
        case 47: "if state.deep then state.deep[\"\(s)\"] = state.deep.a end"
        case 48: "if state.deep then state.deep = { a = state.deep.b, b = state.deep.a } end"
        case 49: "if type(\(ref)) == 'table' and \(ref).done == nil and \(ref)[1] == nil then \(ref).x = \(ref).y or { \(n) } end"
        case 50: "if state.deep and state.deep.a and state.deep.a.x then table.insert(state.deep.a.x, 1, \(n)) end"
        case 51: "if state.deep and state.deep[\"\(s)\"] and state.deep[\"\(s)\"].x then state.deep[\"\(s)\"].y = state.deep[\"\(s)\"].x end"
        // A view and its tags put back in one updater, in either order; not once the updater made a
        // todo or the list (in a table the updater made, they stay themselves).
        case 55:
            "if not viewed and not made_todos and not made_todo and \(q) <= #state.todos and \(todo) then viewed = true; local v = current_view(); \(todo).tags = v.todos[\(q)].tags; state.todos[\(q)] = v.todos[\(q)] end"
        case 56:
            "if not viewed and not made_todos and not made_todo and \(q) <= #state.todos then viewed = true; local v = current_view(); state.todos[\(q)] = v.todos[\(q)]; if \(todo) then \(todo).tags = v.todos[\(q)].tags end end"
        default: "state.counter = state.counter + \(n)"
        }
    }

    /// What each generated updater starts with: its locals.
    static let prologue = """
        local r, viewed, made_todos, made_todo = {}, false, false, false

        """

    /// Runs `body` and raises an error `pcall` catches; any other error goes on, so that writing a
    /// read-only part (a view inside a table the updater made) still fails the updater.
    static func caught(_ body: String) -> String {
        "do local ok, e = pcall(function() \(body); error('caught', 0) end); if e ~= 'caught' then error(e, 0) end end"
    }

    static let gen = zip(
        Gen.int(in: 0...57), Gen.int(in: 1...4), Gen.int(in: 1...4), Gen.int(in: 1...3),
        Gen.element(of: ["a", "b", "ann"]).map { $0! }, Gen.int(in: 0...9)
    ).map { AliasingStep(kind: $0, p: $1, q: $2, i: $3, s: $4, n: $5) }
}

@Suite("Resident state: property-based aliasing and moves against plain copies")
struct LuaDraftAliasingPropertyTests {
    /// Updaters that hold parts of the state in locals while moving tables around, then write them.
    @Test func aliasedAndMovedTablesEndWhereThePlainCopiesEnd() async throws {
        let dispatches = AliasingStep.gen.array(of: 3...10).array(of: 1...6)
        await propertyCheck(count: 150, input: dispatches) { dispatches in
            try expectSameAsPlainCopies(
                dispatches.map { AliasingStep.prologue + $0.map(\.description).joined(separator: "\n") },
                acceptingReadOnlyParts: true)
        }
    }
}
