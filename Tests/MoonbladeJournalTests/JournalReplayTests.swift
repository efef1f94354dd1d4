import MoonbladeHost
import MoonbladeJournal
import Testing

@Suite struct JournalReplayTests {
    /// Records adds of 1, 2, 3, a failing item and a side effect on the `tally` plugin as first written.
    private func recordSession(_ workspace: Workspace) async throws -> Journal {
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        for by in 1...3 {
            try await host.dispatch("tally.add", ["by": by]).value
        }
        _ = try? await host.dispatch("tally.fail").value
        try await host.dispatch("tally.twice", ["by": 1]).value
        return journal
    }

    @Test func theSameCodeReplaysWithoutDivergence() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [try workspace.tally()]))
        #expect(report.divergence == nil)
        #expect(report.matched == 6)  // three adds, the failure, the side effect's two adds
        #expect(report.skipped == 1)  // the side effect itself
    }

    @Test func changedCodeDivergesAtTheFirstDifferentResult() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        // Version 2 reads the amount from `amount`: with the recorded `by` payloads it adds 1 each time.
        let changed = try PluginHost<JSONValue>(plugins: [try workspace.tally(version: 2, step: "amount")])
        let report = try JournalReplay.run(journal, on: changed)
        let divergence = try #require(report.divergence)
        #expect(report.matched == 1)
        #expect(divergence.entry.sequence == 2)
        #expect(divergence.entry.name == "tally.add")
        #expect(divergence.lines == ["count: 3 (recorded) → 2 (replayed)"])
    }

    @Test func fromAndUntilBoundTheReplay() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let changed = try PluginHost<JSONValue>(plugins: [try workspace.tally(version: 2, step: "amount")])
        #expect(try JournalReplay.run(journal, on: changed, from: 1, until: 1).divergence == nil)
        #expect(try JournalReplay.run(journal, on: changed, from: 3).divergence?.entry.sequence == 3)
    }

    @Test func anOutcomeThatChangesIsADivergence() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let lenient = try workspace.plugin(
            "tally",
            """
            return { name = "tally", updaters = {
              add = function(state, p) state.count = (state.count or 0) + p.by end,
              fail = function(state) end,
            } }
            """)
        let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [lenient]))
        let divergence = try #require(report.divergence)
        #expect(divergence.entry.sequence == 4)
        #expect(divergence.lines.first?.hasPrefix("recorded: failed: ") == true)
        #expect(divergence.lines.first?.hasSuffix("; replayed: applied") == true)
    }
}
