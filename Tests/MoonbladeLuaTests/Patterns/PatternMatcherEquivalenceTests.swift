import CLua
import MoonbladeLua
import Testing

/// Moonblade's step-counting pattern matcher gives what Lua's own `lstrlib.c` gives.
@Suite("Pattern matcher equivalence")
struct PatternMatcherEquivalenceTests {
    /// Runs `PatternCorpus.script` in a plain Lua state with Lua's own string library.
    static func stockOutput() throws -> String {
        let state = try #require(luaL_newstate())
        defer { lua_close(state) }
        luaL_openlibs(state)
        let script = PatternCorpus.script
        #expect(luaL_loadbufferx(state, script, script.utf8.count, "@corpus.lua", "t") == LUA_OK)
        let status = moonblade_pcall(state, 0, 1, 0)
        let output = String(cString: lua_tolstring(state, -1, nil))
        #expect(status == LUA_OK, "\(output)")
        return output
    }

    @Test func everyCallOfTheCorpusGivesLuasResultsAndErrors() throws {
        let stock = try Self.stockOutput().split(separator: "\n", omittingEmptySubsequences: false)
        let vm = try LuaVM()  // no budget: the results must not depend on counting
        guard case .string(let output) = try vm.run(PatternCorpus.script, chunkName: "corpus.lua").first else {
            Issue.record("the corpus returned no string")
            return
        }
        let ours = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(stock.count > 40_000)
        #expect(ours.count == stock.count)
        var differences = 0
        var call = ""
        for (line, (expected, actual)) in zip(stock, ours).enumerated() {
            if expected.hasPrefix("\"") { call = String(expected) }
            if expected != actual {
                differences += 1
                if differences <= 10 {
                    Issue.record("line \(line + 1), \(call):\n  Lua:       \(expected)\n  Moonblade: \(actual)")
                }
            }
        }
        #expect(differences == 0)
    }
}
