import MoonbladeLua
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
        default: "state.counter = \"not a number\""  // decodes in neither copy
        }
    }

    static let gen = zip(
        Gen.int(in: 0...23), Gen.int(in: 1...5), Gen.int(in: 1...5), Gen.element(of: ["a", "b", "c", "d"]).map { $0! },
        Gen.int(in: 0...9), Gen.bool
    ).map { Mutation(kind: $0, p: $1, q: $2, s: $3, n: $4, flag: $5) }
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
            _ = try harness.resident.decode(Board.self, of: #require(harness.resident.current))
            for (number, mutations) in dispatches.enumerated() {
                let source = mutations.map(\.description).joined(separator: "\n")
                let before = try #require(harness.resident.current)

                // The plain copy: run on a deep copy, decode in full, keep it if it decodes.
                let plainResult = try plain.run(source)

                // The resident state: draft, decode what changed, commit.
                var residentResult: Board?
                if let pending = try? harness.draft(source) {
                    residentResult = try? harness.resident.decode(Board.self, of: pending)
                    if residentResult != nil { harness.commit(pending) }
                }

                #expect(residentResult == plainResult, "dispatch \(number):\n\(source)")
                if let plainResult {
                    expected = plainResult
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
