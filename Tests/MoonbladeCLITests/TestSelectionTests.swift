import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade test selection and --watch")
struct TestSelectionTests {
    let workspace = Workspace()

    func writeSpec(_ verdict: String) throws {
        try workspace.file(
            "tally/spec/tally_spec.lua",
            """
            describe("tally", function()
              it("adds #fast", function()
                dispatch("tally.add")
                assert.are.equal(\(verdict), state().total)
              end)
              it("reports #slow", function() assert.are.same({ total = 1 }, (function() dispatch("tally.add"); return dispatch("tally.report") end)()) end)
              pending("forgets")
            end)
            """)
    }

    @Test func filterAndTagsChooseCases() async throws {
        try workspace.plugin("tally", tallyPlugin)
        try writeSpec("1")
        let tagged = try await workspace.run("test", "tally", "--exclude-tags", "slow")
        #expect(tagged.status == 0, "\(tagged.stderr)")
        #expect(tagged.stdout == "ok   tally: tally adds #fast\npend tally: tally forgets\n1 passed, 0 failed, 1 pending\n")
        let filtered = try await workspace.run("test", "tally", "--filter", "rep.rts", "--tags", "slow,fast")
        #expect(filtered.stdout == "ok   tally: tally reports #slow\n1 passed, 0 failed\n")
        let bad = try await workspace.run("test", "tally", "--filter", "(")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("not a regular expression"))
    }

    @Test func watchRunsTheSpecsAgainOnEveryChange() async throws {
        try workspace.plugin("tally", tallyPlugin)
        try writeSpec("1")
        let running = try RunningMoonblade(["test", "tally", "--watch", "--tags", "fast"], in: workspace.url)
        try await running.waitUntil("the first run") { stdout, _ in stdout.contains("1 passed, 0 failed") }
        try writeSpec("2")
        try await running.waitUntil("the run after the change") { stdout, _ in stdout.contains("0 passed, 1 failed") }
    }
}
