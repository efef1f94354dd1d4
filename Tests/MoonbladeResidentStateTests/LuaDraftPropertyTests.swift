import MoonbladeLua
import MoonbladeResidentState
import PropertyBased
import Testing

/// One random mutation of a ``Board`` as Lua code; `p`/`q` are positions, `s` a key or title.
struct Mutation: CustomStringConvertible {
    var kind: Int, p: Int, q: Int, s: String, n: Int, flag: Bool

    var description: String {
        switch kind {
        case 0: "state.counter = state.counter + \(n)"
        case 1: "state.name = \"\(s)\""
        case 2: "state.name = nil"
        case 3: "table.insert(state.todos, { title = \"\(s)\", done = \(flag), tags = {} })"
        case 4: "if #state.todos >= \(p) then table.insert(state.todos, \(p), { title = \"\(s)\", done = \(flag), tags = { \"\(s)\" } }) end"
        case 5: "if #state.todos >= \(p) then table.remove(state.todos, \(p)) end"
        case 6: "if #state.todos >= \(p) then state.todos[\(p)].done = not state.todos[\(p)].done end"
        case 7: "if #state.todos >= \(p) then state.todos[\(p)].title = \"\(s)\" end"
        case 8: "if #state.todos >= \(p) then table.insert(state.todos[\(p)].tags, \"\(s)\") end"
        case 9: "if #state.todos >= \(p) then table.remove(state.todos[\(p)].tags, 1) end"
        case 10: "table.sort(state.todos, function(a, b) return a.title < b.title end)"
        case 11: "if #state.todos >= \(max(p, q)) then state.todos[\(p)] = state.todos[\(q)] end"
        case 12: "state.byOwner[\"\(s)\"] = { \(n) }"
        case 13: "state.byOwner[\"\(s)\"] = nil"
        case 14: "if state.byOwner[\"\(s)\"] then table.insert(state.byOwner[\"\(s)\"], \(n)) end"
        case 15: "state.settings = { theme = \"\(s)\", limits = { [\"\(s)\"] = \(n) } }"
        case 16: "state.settings.limits[\"\(s)\"] = \(n)"
        case 17: "state.settings.limits[\"\(s)\"] = nil"
        case 18: "state.todos = {}"
        case 19: "for i = #state.todos, 1, -1 do if state.todos[i].done then table.remove(state.todos, i) end end"
        case 20:
            "local t = state.todos[\(p)]; if t then state.todos[#state.todos + 1] = { title = t.title .. \"\(s)\", done = t.done, tags = t.tags } end"
        case 21: "if #state.todos > 0 then error(\"halfway\") end"
        case 22:
            "do return { counter = state.counter + 1, name = state.name, todos = state.todos, byOwner = state.byOwner, settings = state.settings } end"
        // Keys of odd kinds: integral floats, strings that look like numbers, a hole, a NaN.
        case 24: "if #state.todos >= \(p) then state.todos[\(p).0].done = \(flag) end"
        case 25: "local l = state.byOwner[\"\(s)\"]; if l then l[#l + 1.0] = \(n) end"
        case 26: "state.byOwner[\"\(n)\"] = { \(n) }"
        // A hole: decodes in neither copy. The updater ends there: a length read across a hole is any
        // border Lua picks (0 or the end), which a draft and a plain copy need not pick alike.
        case 27: "if #state.todos >= 2 then state.todos[1] = nil return end"
        case 28: "state.byOwner[\"\(s)\"] = { \(n), 0/0 }"
        // Aliases: one table at two keys, written through one of them; a table assigned into itself.
        case 29: "state.byOwner[\"\(s)\"] = state.byOwner.ann"
        case 30: "if state.byOwner.bob then state.byOwner[\"\(s)\"] = state.byOwner.bob; table.insert(state.byOwner[\"\(s)\"], \(n)) end"
        case 31: "state.settings.limits.me = state.settings"
        case 32: "state.todos = state.todos; state.settings.limits = state.settings.limits"
        // Parts kept in a global and put back, in the same dispatch or a later one, where the kept
        // draft is revoked.
        case 33: "kept = state.todos[\(p)]"
        case 34: "if kept then state.todos[#state.todos + 1] = kept; kept = nil end"
        // Errors caught inside the updater, the standard library, returning a child.
        case 35: "pcall(function() state.counter = state.counter + \(n); state.todos[#state.todos] = nil; error(\"caught\") end)"
        case 36: "if #state.todos >= \(p + q - 1) then table.move(state.todos, 1, \(p), \(q)) end"
        case 37: "if #state.todos > 0 then state.todos[#state.todos] = nil end"
        case 38: "do return state.settings end"  // decodes in neither copy
        case 39: "if #state.todos >= \(p) then state.todos[\(p)].extra = print end"  // a field Chore ignores
        // pairs while writing, in a way the order of the walk does not change (aliases above).
        case 40: "for k, v in pairs(state.byOwner) do if #v > 1 then state.byOwner[k] = { v[2], v[1] } else state.byOwner[k] = nil end end"
        case 41: "local l = state.byOwner[\"\(s)\"]; if l then table.sort(l, function(a, b) return a > b end) end"
        case 42: "local c = {}; for _, t in ipairs(state.todos) do table.insert(c, 1, t) end; state.todos = c"
        case 43: "local n = select('#', table.unpack(state.todos)); state.counter = n + #state.byOwner.ann"
        case 44: "-- a Swift updater first: \(SwiftChange(p: p, n: n))"
        default: "state.counter = \"not a number\""  // decodes in neither copy
        }
    }

    static let gen = zip(
        Gen.int(in: 0...44), Gen.int(in: 1...5), Gen.int(in: 1...5), Gen.element(of: ["a", "b", "c", "d"]).map { $0! },
        Gen.int(in: 0...9), Gen.bool
    ).map { Mutation(kind: $0, p: $1, q: $2, s: $3, n: $4, flag: $5) }
}

/// A change Swift code makes to the state between Lua updaters (a Swift updater), which pushes the
/// state again, reusing the tables of the collections it left untouched.
struct SwiftChange: CustomStringConvertible {
    var p: Int, n: Int

    var description: String { ["counter", "a todo appended", "byOwner.swift", "limits emptied", "tags of todo 1"][p - 1] }

    func apply(to board: inout Board) {
        switch p {
        case 1: board.counter += 10
        case 2: board.todos.append(Chore(title: "swift", done: false))
        case 3: board.byOwner["swift", default: []].append(n)
        case 4: board.settings.limits.removeAll()
        default: if !board.todos.isEmpty { board.todos[0].tags.append("s\(n)") }
        }
    }
}

@Suite("Resident state: property-based drafts against plain copies")
struct LuaDraftPropertyTests {
    /// Runs the same updaters on drafts of the resident state and on plain deep copies; after each
    /// dispatch both decode to the same `Board` (the resident one through the cache and its patches),
    /// and a failed one (a raise, or a result that does not decode) changes neither.
    @Test func draftsEndWhereTheSameCodeOnAPlainCopyEnds() async throws {
        let dispatches = Mutation.gen.array(of: 1...6).array(of: 1...10)
        await propertyCheck(count: 150, input: dispatches, Gen.int(in: 0...3)) { dispatches, gcEvery in
            let harness = try ResidentStateHarness(Board.sample)
            let plain = try PlainCopyRunner(harness, initial: Board.sample)
            var expected = Board.sample
            // The state as the store holds it: decoded through the cache, so that a Swift change to it
            // keeps the storage of what it leaves untouched, as a Swift updater's does.
            var current = try harness.resident.decode(Board.self, of: #require(harness.resident.current))
            var swiftVersion: UInt64 = 1 << 32
            for (number, generated) in dispatches.enumerated() {
                // A hole (kind 27) ends what a dispatch does: `#` of a table with a hole is any of its
                // borders, which a draft's copy and a plain copy, built differently, need not agree on.
                let mutations = generated.firstIndex { $0.kind == 27 }.map { Array(generated[...$0]) } ?? generated
                for mutation in mutations where mutation.kind == 44 {
                    SwiftChange(p: mutation.p, n: mutation.n).apply(to: &current)
                    swiftVersion += 1
                    try harness.resident.replace(with: current, version: swiftVersion)
                    try plain.replace(with: current)
                    expected = current
                }
                let source = mutations.map(\.description).joined(separator: "\n")
                let before = try #require(harness.resident.current)

                // The plain copy: run on a deep copy, decode in full, keep it if it decodes.
                let plainResult = try plain.run(source)

                // The resident state: draft, decode what changed, commit.
                let (residentResult, usedRevokedPart) = harness.dispatchBoard(source)

                // Where plain tables and drafts differ by design: a draft kept past its updater is
                // revoked, where its plain copy is a table. The plain side then starts again from the
                // resident state.
                if usedRevokedPart && residentResult == nil && plainResult != nil {
                    #expect(mutations.contains { $0.kind == 34 }, "dispatch \(number) used a kept draft it did not put back:\n\(source)")
                    try plain.replace(with: current)
                    continue
                }
                #expect(residentResult == plainResult, "dispatch \(number):\n\(source)")
                if let plainResult {
                    expected = plainResult
                    if let residentResult { current = residentResult }
                } else {
                    #expect(harness.resident.current === before, "dispatch \(number) failed but committed")
                }
                if gcEvery > 0 && number % gcEvery == 0 { try harness.vm.run("collectgarbage()") }
            }
            try harness.vm.run("collectgarbage(); collectgarbage()")
            #expect(try harness.resident.decode(Board.self, of: #require(harness.resident.current)) == expected)
        }
    }
}
