import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// Recorded states meet plugin code that migrated its state since: version 1 keeps `total`, version 2
/// keeps `count` and migrates `total` into it. Known issues, left for the lead: the journal records
/// no plugin version with its states, and a migration runs only inside a hot reload.
@Suite struct JournalMigrationHostileTests {
    private static func step(version: Int) -> String {
        version == 1
            ? #"return { name = "step", version = 1, updaters = { add = function(s, p) s.total = (s.total or 0) + p.by end } }"#
            : """
            return {
              name = "step", version = 2,
              updaters = { add = function(s, p) s.count = s.count + p.by end },
              migrate = function(s, from) s.count = s.total or 0; s.total = nil end,
            }
            """
    }

    /// After a reload migrated the state, `goto` to an entry from before the migration put the
    /// version 1 state back under version 2's code, said "at 1", and the next `step.add` failed on a
    /// nil `count`. It should refuse (naming the plugin and both versions), or migrate what it brings
    /// back, and never leave the store holding a state its code cannot read.
    @Test func gotoAcrossAMigrationGivesTheMigratedCodeAStateItCanRead() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.plugin("step", Self.step(version: 1))], journal: journal)
        try await host.dispatch("step.add", ["by": 1]).value
        try workspace.plugin("step", Self.step(version: 2))
        _ = try await host.reload(plugin: "step")
        #expect(host.state == ["count": 1])

        await withKnownIssue("goto restores a state recorded before a migration without migrating it") {
            _ = try? await TimeTravel(host: host, journal: journal).goto(1)
            let stateAfterGoto = host.state
            #expect(stateAfterGoto == ["count": 1], "goto 1 put back \(stateAfterGoto) under version 2")
        }
    }

    /// A journal recorded with version 1 and reopened with version 2: the host resumes the version 1
    /// state without running `migrate`, and version 2's first `step.add` fails on a nil `count`.
    @Test func aJournalReopenedWithANewerVersionMigratesItsState() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        do {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.plugin("step", Self.step(version: 1))], journal: journal)
            try await host.dispatch("step.add", ["by": 3]).value
            try journal.close()
        }
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.plugin("step", Self.step(version: 2))], journal: journal)
        withKnownIssue("a journal's state is resumed without the migration a newer plugin version asks for") {
            #expect(host.state == ["count": 3])
        }
        try journal.close()
    }
}
