import MoonbladeHost
import MoonbladeJournal
import Testing

/// Replay against code that changed in the ways plugins do: an updater that now fails, was removed,
/// renamed, became a side effect, or reads its payload another way. Each says where and what differs.
@Suite struct JournalReplayChangeTests {
    /// Records pushes of `milk` and `eggs`, then an add of 2, on the first `tally`.
    private func recordSession(_ workspace: Workspace) async throws -> Journal {
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.push", ["item": "milk"]).value
        try await host.dispatch("tally.push", ["item": "eggs"]).value
        try await host.dispatch("tally.add", ["by": 2]).value
        return journal
    }

    private func replay(_ journal: Journal, on source: String, _ workspace: Workspace) throws -> JournalReplay.Report {
        let host = try PluginHost<JSONValue>(plugins: [try workspace.plugin("tally", source)])
        #expect(host.loadErrors.isEmpty)
        return try JournalReplay.run(journal, on: host)
    }

    @Test(arguments: [
        // Now fails.
        (#"push = function(s, p) error("no more pushing") end"#, "no more pushing"),
        // Removed (only `add` is left).
        ("", "tally.push"),
        // Renamed.
        ("append = function(s, p) s.items = s.items or {}; s.items[#s.items + 1] = p.item end", "tally.push"),
        // Reads its payload another way: `p.item` is now a table with a title.
        ("push = function(s, p) s.items = s.items or {}; s.items[#s.items + 1] = p.item.title:upper() end", "tally.push"),
    ])
    func anUpdaterThatNoLongerAppliesDivergesAtItsFirstDispatch(updater: String, message: String) async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let source = """
            return { name = "tally", updaters = {
              add = function(s, p) s.count = (s.count or 0) + p.by end,
              \(updater)
            } }
            """
        let report = try replay(journal, on: source, workspace)
        let divergence = try #require(report.divergence)
        #expect(divergence.entry.sequence == 1)
        #expect(report.matched == 0)
        #expect(divergence.replayed != .applied)
        let first = try #require(divergence.lines.first)
        #expect(first.hasPrefix("recorded: applied; replayed: failed: "))
        #expect(first.contains(message), "\(first)")
    }

    @Test func anUpdaterThatBecameASideEffectDiverges() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let source = """
            return { name = "tally",
              updaters = { add = function(s, p) s.count = (s.count or 0) + p.by end },
              side_effects = { push = function(ctx, p) end },
            }
            """
        let divergence = try #require(try replay(journal, on: source, workspace).divergence)
        #expect(divergence.entry.sequence == 1)
        #expect(divergence.lines.first?.hasPrefix("recorded: applied; replayed: failed: ") == true)
    }

    @Test func aChangeLaterInTheSessionDivergesThereWithTheStatesDiff() async throws {
        let workspace = Workspace()
        let journal = try await recordSession(workspace)
        let source = """
            return { name = "tally", updaters = {
              push = function(s, p) s.items = s.items or {}; s.items[#s.items + 1] = p.item end,
              add = function(s, p) s.count = (s.count or 0) + p.by; s.touched = true end,
            } }
            """
        let report = try replay(journal, on: source, workspace)
        let divergence = try #require(report.divergence)
        #expect(report.matched == 2)
        #expect(divergence.entry.sequence == 3)
        #expect(divergence.recordedState == ["items": ["milk", "eggs"], "count": 2])
        #expect(divergence.replayedState == ["items": ["milk", "eggs"], "count": 2, "touched": true])
        #expect(divergence.lines == ["touched: (absent) (recorded) → true (replayed)"])
    }
}
