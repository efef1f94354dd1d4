import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// Recorded states meet plugin code that migrated its state since: version 1 keeps `total`, version 2
/// keeps `count` and migrates `total` into it (`Workspace.step(version:migrate:)`). The journal
/// records which plugin versions its states were kept by, and migrates what it puts back.
@Suite struct JournalMigrationHostileTests {
    /// After a reload migrated the state, `goto` to an entry from before the migration put the
    /// version 1 state back under version 2's code, said "at 1", and the next `step.add` failed on a
    /// nil `count`. It migrates what it brings back.
    @Test func gotoAcrossAMigrationGivesTheMigratedCodeAStateItCanRead() async throws {
        let workspace = Workspace()
        let (host, journal) = try await workspace.hostMigratedByAReload()
        #expect(host.state == ["count": 1])
        try await host.dispatch("step.add", ["by": 5]).value

        try await TimeTravel(host: host, journal: journal).goto(1)
        #expect(host.state == ["count": 1])
        try await host.dispatch("step.add", ["by": 2]).value
        #expect(host.state == ["count": 3])
    }

    /// A journal recorded with version 1 and reopened with version 2: the host resumed the version 1
    /// state without running `migrate`, and version 2's first `step.add` failed on a nil `count`. It
    /// migrates the state once: reopened again with version 2, the state is not migrated a second
    /// time (this `migrate` would turn `count` into 0).
    @Test func aJournalReopenedWithANewerVersionMigratesItsState() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        do {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 1)], journal: journal)
            try await host.dispatch("step.add", ["by": 3]).value
            try journal.close()
        }
        for expected in [4, 5] as [JSONValue] {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)], journal: journal)
            try await host.dispatch("step.add", ["by": 1]).value
            #expect(host.state == ["count": expected])
            #expect(try journal.pluginVersions() == ["step": 2])
            try journal.close()
        }
    }
}
