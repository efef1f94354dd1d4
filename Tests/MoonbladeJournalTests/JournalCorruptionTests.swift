import Foundation
import GRDB
import MoonbladeHost
import MoonbladeJournal
import Testing

/// A journal that is not one, or no longer whole, is a clear error naming the file: never a crash.
@Suite struct JournalCorruptionTests {
    /// Expects `body` to throw a ``JournalError`` for `path` whose problem contains `problem`.
    private func expectJournalError(
        _ path: String, _ problem: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        #expect(sourceLocation: sourceLocation) {
            try body()
        } throws: { error in
            guard let error = error as? JournalError else { return false }
            return error.file == path && error.problem.contains(problem) && "\(error)".hasPrefix("journal \(path): ")
        }
    }

    @Test func aTextFileIsNotAJournal() throws {
        let workspace = Workspace()
        let path = workspace.path("notes.journal")
        try String(repeating: "not a database\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
        expectJournalError(path, "not an SQLite database") { _ = try Journal(path: path) }
        expectJournalError(path, "not an SQLite database") { _ = try Journal.existing(at: path).check() }
    }

    @Test func anotherSQLiteDatabaseIsNotAJournal() throws {
        let workspace = Workspace()
        let path = workspace.path("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE people (name TEXT)") }
        try queue.close()
        expectJournalError(path, "not a Moonblade journal") { _ = try Journal(path: path) }
    }

    @Test func aMissingFileIsReportedWhenOpeningForReading() {
        let path = Workspace().path("missing.journal")
        expectJournalError(path, "no such file") { _ = try Journal.existing(at: path) }
    }

    @Test func aTruncatedJournalIsReported() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try await record(200, into: path, workspace)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        expectJournalError(path, "corrupted") {
            let journal = try Journal.existing(at: path)
            _ = try journal.check()
            _ = try journal.state()
        }
    }

    @Test func aDamagedPatchNamesItsEntry() async throws {
        let workspace = Workspace()
        let path = try await recordDamaged(workspace, #"UPDATE entries SET patch = '[[["items", 7], "x"]]' WHERE seq = 3"#)
        let journal = try Journal.existing(at: path)
        expectJournalError(path, "entry 3 (tally.push): its patch does not fit the state") { _ = try journal.check() }
        expectJournalError(path, "entry 3 (tally.push): its patch does not fit") { _ = try journal.state(at: 4) }
        // States before the damage still rebuild.
        #expect(try journal.state(at: 2) == ["items": ["item 0", "item 1"]])
    }

    @Test func aMissingEntryIsReported() async throws {
        let workspace = Workspace()
        let path = try await recordDamaged(workspace, "DELETE FROM entries WHERE seq = 2")
        expectJournalError(path, "entry 2 is missing") { _ = try Journal.existing(at: path).check() }
    }

    /// Replay and to-spec walk the entries as check does: a gap stops them too, naming the entry.
    @Test func aMissingEntryStopsEveryWalk() async throws {
        let workspace = Workspace()
        let path = try await recordDamaged(workspace, "DELETE FROM entries WHERE seq = 2")
        let journal = try Journal.existing(at: path)
        expectJournalError(path, "entry 2 is missing (the next is 3)") {
            _ = try JournalSpecWriter.spec(from: journal, plugin: "tally")
        }
    }

    @Test func entriesWithoutASnapshotBeforeThemAreReported() async throws {
        let workspace = Workspace()
        let path = try await recordDamaged(workspace, "DELETE FROM snapshots")
        expectJournalError(path, "the entries have no snapshot before them") { _ = try Journal.existing(at: path).check() }
    }

    @Test func garbageInARowIsReported() async throws {
        let workspace = Workspace()
        let path = try await recordDamaged(workspace, "UPDATE entries SET payload = '{oops' WHERE seq = 2")
        expectJournalError(path, "entry 2's payload is not valid JSON") { _ = try Journal.existing(at: path).entries() }
    }

    /// Records five pushes into `app.journal`, then damages it with `sql`; returns its path.
    private func recordDamaged(_ workspace: Workspace, _ sql: String) async throws -> String {
        let path = workspace.path("app.journal")
        try await record(5, into: path, workspace)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    /// Records `count` pushes of `item N` into a journal at `path` and closes it.
    private func record(_ count: Int, into path: String, _ workspace: Workspace) async throws {
        let journal = try Journal(path: path, configuration: .init(snapshotInterval: 1000))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        for index in 0..<count {
            try await host.dispatch("tally.push", JSONValue.object(["item": .string("item \(index)")])).value
        }
        try journal.close()
    }
}
