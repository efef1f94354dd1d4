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

    /// Runs `PatternCorpus.script` in a `LuaVM`, with no budget: the results must not depend on counting.
    static func moonbladeOutput() throws -> String? {
        let vm = try LuaVM()
        guard case .string(let output) = try vm.run(PatternCorpus.script, chunkName: "corpus.lua").first else { return nil }
        return output
    }

    @Test func everyCallOfTheCorpusGivesLuasResultsAndErrors() async throws {
        let (stockOutput, ourOutput) = try await onOwnThread { (try Self.stockOutput(), try Self.moonbladeOutput()) }
        let stock = stockOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let ours = try #require(ourOutput, "the corpus returned no string")
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(stock.count > 30_000)
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
