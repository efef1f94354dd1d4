import Foundation
import GRDB
import Moonblade
import MoonbladeHost
import MoonbladeJournal
import MoonbladeTestSupport
import Testing

/// A bad disk: a journal file cut short, with flipped bytes, a zeroed block or garbage after it is
/// either read whole and right, or refused with an error naming the file: never a crash, never a
/// state or history that silently differs from what was recorded.
///
/// One test at a time, yielding between cases: each test is seconds of synchronous SQLite work, which
/// would otherwise hold the cooperative pool's threads and starve time-bounded tests elsewhere.
@Suite(.serialized) struct JournalDamageTests {
    /// A small sound journal (five pushes, a snapshot every two) and what reading it gives.
    private struct Recorded {
        let bytes: Data
        let entries: [JournalEntry]
        let states: [JSONValue?]
    }

    private static func recordSmallJournal(_ workspace: Workspace) async throws -> Recorded {
        let path = workspace.path("sound.journal")
        let journal = try Journal(path: path, configuration: .init(snapshotInterval: 2))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        for index in 0..<5 {
            try await host.dispatch("tally.push", JSONValue.object(["item": .string("item \(index)")])).value
        }
        try journal.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the closed journal is checkpointed")
        let reader = try Journal.existing(at: path)
        let recorded = Recorded(
            bytes: try Data(contentsOf: URL(fileURLWithPath: path)), entries: try reader.entries(),
            states: try (0...5).map { try reader.state(at: $0) })
        try reader.close()
        return recorded
    }

    /// Opens the damaged file at `path` the ways users do (check, read, recover); each either fails
    /// with a ``JournalError`` naming `path`, or gives exactly what was recorded.
    private func expectWholeOrRefused(
        _ path: String, _ recorded: Recorded, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        func refusedOrSame<T: Equatable>(_ expected: T, _ body: () throws -> T) {
            do {
                let value = try body()
                #expect(value == expected, "\(what): read without an error but differs", sourceLocation: sourceLocation)
            } catch let error as JournalError {
                #expect(error.file == path, "\(what): \(error)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(what): not a JournalError: \(error)", sourceLocation: sourceLocation)
            }
        }
        refusedOrSame(recorded.entries.count) {
            let journal = try Journal.existing(at: path)
            defer { try? journal.close() }
            return try journal.check().entries
        }
        refusedOrSame(recorded.entries) {
            let journal = try Journal.existing(at: path)
            defer { try? journal.close() }
            return try journal.entries()
        }
        refusedOrSame(recorded.states) {
            let journal = try Journal.existing(at: path)
            defer { try? journal.close() }
            return try (0...5).map { try journal.state(at: $0) }
        }
        // What `run --journal` does: open for writing and recover the latest state.
        refusedOrSame(recorded.states.last!) {
            let journal = try Journal(path: path)
            defer { try? journal.close() }
            return try journal.state()
        }
    }

    /// Writes the recorded bytes, damaged by `damage`, to `path` and expects them whole or refused.
    private func expectDamage(
        _ what: String, of recorded: Recorded, at path: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ damage: (inout Data) -> Void
    ) async throws {
        // Each case is milliseconds of synchronous SQLite work: let the pool's other tasks in between.
        await Task.yield()
        var bytes = recorded.bytes
        damage(&bytes)
        try write(bytes, to: path)
        expectWholeOrRefused(path, recorded, what, sourceLocation: sourceLocation)
    }

    private func write(_ bytes: Data, to path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    @Test func truncatedAtEveryByteOffsetIsWholeOrRefused() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("cut.journal")
        // Every offset of SQLite's header and around each page boundary; a stride of 127 between
        // (1,270 under sanitizers, where each cut's SQLite work is ten times slower).
        let pageSize = 4096
        let stride = 127.stretchedForSanitizers
        let offsets = (1..<recorded.bytes.count).filter { offset in
            offset <= 120 || offset % pageSize < 3 || offset % pageSize > pageSize - 3 || offset % stride == 0
        }
        for offset in offsets {
            try await expectDamage("cut at \(offset) of \(recorded.bytes.count)", of: recorded, at: path) { $0 = $0.prefix(offset) }
        }
    }

    @Test func aFileCutInsideItsHeaderIsNotStartedAfresh() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("cut.journal")
        for offset in [1, 16, 50, 99, 100, 101, 511] {
            try write(recorded.bytes.prefix(offset), to: path)
            #expect(throws: JournalError.self, "cut at \(offset)") {
                let journal = try Journal(path: path)
                try journal.close()
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == recorded.bytes.prefix(offset), "left as it was")
        }
    }

    @Test(arguments: [0x01, 0x80, 0xFF] as [UInt8])
    func flippedBytesAreFoundOrHarmless(mask: UInt8) async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("flipped.journal")
        var generator = SplitMix(seed: UInt64(mask))
        // A spread of offsets over the whole file, and more in the last page (where the newest rows are):
        // 40 of each, 4 under sanitizers.
        let count = recorded.bytes.count
        let samples = 40.scaledDownForSanitizers
        let offsets = Set(
            (0..<samples).map { _ in Int(generator.next() % UInt64(count)) }
                + (0..<samples).map { _ in count - 1 - Int(generator.next() % UInt64(min(count, 4096))) })
        for offset in offsets.sorted() {
            try await expectDamage("byte \(offset) ^ \(mask)", of: recorded, at: path) { $0[offset] ^= mask }
        }
    }

    @Test func everyTextByteOfTheRowsFlippedIsFound() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("flipped.journal")
        // The rows' JSON, where a flip can leave valid JSON with another value: `item 1` → `item 0`.
        let text = Array(recorded.bytes)
        let needles = ["item ", "\"items\""].map { Array($0.utf8) }
        var offsets: [Int] = []
        for needle in needles {
            for start in 0..<(text.count - needle.count) where Array(text[start..<start + needle.count]) == needle {
                offsets += Array(start..<start + needle.count + 2)
            }
        }
        #expect(offsets.count > 20)
        for offset in offsets where offset % 3 == 0 {
            try await expectDamage("text byte \(offset) ^ 1", of: recorded, at: path) { $0[offset] ^= 0x01 }
        }
    }

    @Test func aZeroedBlockIsFoundOrHarmless() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("zeroed.journal")
        for start in stride(from: 0, to: recorded.bytes.count, by: 512) {
            try await expectDamage("zeroed 512 bytes at \(start)", of: recorded, at: path) { bytes in
                let end = min(start + 512, bytes.count)
                bytes.replaceSubrange(start..<end, with: Data(count: end - start))
            }
        }
    }

    @Test func garbageAppendedIsFoundOrHarmless() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("appended.journal")
        for garbage in [Data("x".utf8), Data(repeating: 0xAB, count: 4096), Data(repeating: 0, count: 10_000), Data("{\"count\": 1}\n".utf8)] {
            try await expectDamage("\(garbage.count) bytes appended", of: recorded, at: path) { $0 += garbage }
        }
    }

    @Test func aRowRewrittenOrSwappedWithAnotherIsFound() async throws {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("edited.journal")
        let edits = [
            // The patch of 3 made to set another, well-formed value.
            #"UPDATE entries SET patch = replace(patch, 'item 2', 'item 9') WHERE seq = 3"#,
            // Two patches swapped: each still fits.
            """
            UPDATE entries SET patch = CASE seq WHEN 4 THEN (SELECT patch FROM entries WHERE seq = 5)
                ELSE (SELECT patch FROM entries WHERE seq = 4) END WHERE seq IN (4, 5)
            """,
            // A row duplicated in place of the next one.
            "DELETE FROM entries WHERE seq = 5; INSERT INTO entries SELECT 5, time, name, kind, payload, plugin, plugin_version, outcome, error, duration, patch, target FROM entries WHERE seq = 4",
            // A snapshot's state changed.
            #"UPDATE snapshots SET state = replace(state, 'item 1', 'item 7')"#,
        ]
        for edit in edits {
            try await writeEdited(recorded, to: path, edit)
            let journal = try Journal.existing(at: path)
            #expect(throws: JournalError.self, "\(edit)") { _ = try journal.check() }
            try journal.close()
            expectWholeOrRefused(path, recorded, edit)
        }
    }

    @Test func checkSaysHowFarTheStatesStillRebuild() async throws {
        let (workspace, recorded, path) = try await editedCopy(
            "UPDATE entries SET payload = replace(payload, 'item 3', 'item 8') WHERE seq = 4")
        defer { withExtendedLifetime(workspace) {} }
        let journal = try Journal.existing(at: path)
        #expect {
            _ = try journal.check()
        } throws: { error in
            "\(error)" == "journal \(path): entry 4 (tally.push) is damaged: its row does not match its checksum (the states up to entry 3 rebuild)"
        }
        #expect(try journal.state(at: 3) == recorded.states[3])
        // The snapshot at 4 still gives the states after it; the damaged entry itself is refused.
        #expect(try journal.state(at: 5) == recorded.states[5])
        #expect(throws: JournalError.self) { _ = try journal.entries(from: 4, until: 4) }
        #expect(try journal.entries(until: 3) == Array(recorded.entries.prefix(3)))
    }

    /// A value of the wrong type (each column is read once, for the entry and for its checksum) is an
    /// error naming the entry and the column, and the entries before it still read.
    @Test func aColumnOfTheWrongTypeIsAnErrorNamingIt() async throws {
        let (workspace, recorded, path) = try await editedCopy("UPDATE entries SET duration = 'slow' WHERE seq = 4")
        defer { withExtendedLifetime(workspace) {} }
        let journal = try Journal.existing(at: path)
        #expect {
            _ = try journal.entries()
        } throws: { error in
            "\(error)" == #"journal \#(path): entry 4: its duration is unreadable ("slow" is not a Double)"#
        }
        #expect(try journal.entries(until: 3) == Array(recorded.entries.prefix(3)))
    }

    @Test func aJournalWrittenBeforeChecksumsIsReadAndGoesOn() async throws {
        let (workspace, recorded, path) = try await editedCopy(
            "ALTER TABLE entries DROP COLUMN checksum; ALTER TABLE snapshots DROP COLUMN checksum")
        let reader = try Journal.existing(at: path)
        #expect(try reader.check().entries == 5)
        #expect(try reader.entries() == recorded.entries)
        try reader.close()
        let columns = try await DatabaseQueue(path: path).read { try $0.columns(in: "entries").map(\.name) }
        #expect(!columns.contains("checksum"), "a reader adds no column")

        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.push", ["item": "item 5"]).value
        try journal.close()
        let after = try Journal.existing(at: path)
        #expect(try after.check().entries == 6)
        #expect(try after.state() == ["items": ["item 0", "item 1", "item 2", "item 3", "item 4", "item 5"]])
    }

    /// A small journal recorded in a new workspace and a copy of it changed with `sql`: the workspace
    /// (the files live as long as it), what the journal held, and the copy's path.
    private func editedCopy(_ sql: String) async throws -> (Workspace, Recorded, String) {
        let workspace = Workspace()
        let recorded = try await Self.recordSmallJournal(workspace)
        let path = workspace.path("edited.journal")
        try await writeEdited(recorded, to: path, sql)
        return (workspace, recorded, path)
    }

    /// Writes the recorded journal to `path` and changes it with `sql`, as an editor of the file would.
    private func writeEdited(_ recorded: Recorded, to path: String, _ sql: String) async throws {
        try write(recorded.bytes, to: path)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            // A later column added by the format must not break a copied row: copy what exists.
            try db.execute(sql: sql.replacingOccurrences(of: ", target FROM entries", with: try Self.otherColumns(db)))
        }
        try queue.close()
    }

    /// `, target FROM entries`, with any column after `target` copied too.
    private static func otherColumns(_ db: Database) throws -> String {
        let columns = try db.columns(in: "entries").map(\.name)
        guard let index = columns.firstIndex(of: "target") else { return ", target FROM entries" }
        return ", " + columns[index...].joined(separator: ", ") + " FROM entries"
    }

    @Test func anEmptyFileIsANewJournalForWritingAndAnErrorForReading() throws {
        let workspace = Workspace()
        let path = workspace.path("empty.journal")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: JournalError.self) { _ = try Journal.existing(at: path).check() }
        let journal = try Journal(path: path)
        #expect(try journal.state() == nil)
        try journal.close()
    }

    @Test func aDirectoryIsAClearError() throws {
        let workspace = Workspace()
        let path = workspace.path("folder.journal")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for open in [{ try Journal(path: path) }, { try Journal.existing(at: path) }] as [() throws -> Journal] {
            #expect {
                _ = try open()
            } throws: { error in
                (error as? JournalError)?.file == path && "\(error)".contains("cannot be opened")
            }
        }
        let inMissingFolder = workspace.path("no/such/folder/app.journal")
        #expect(throws: JournalError.self) { _ = try Journal(path: inMissingFolder) }
    }

    @Test func aJournalOfAnotherStateTypeIsAnErrorNamingTheType() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.push", ["item": "milk"]).value
        _ = try? await host.dispatch("tally.add", ["by": "many"]).value  // recorded as failed
        try journal.close()

        struct Other: State, Codable { var total: Int = 0 }
        #expect {
            _ = try PluginHost<Other>(plugins: [try workspace.tally()], journal: try Journal(path: path))
        } throws: { error in
            "\(error)".hasPrefix("journal \(path): the recorded state is not a Other")
        }
        // The refused open left the journal as it was.
        let reader = try Journal.existing(at: path)
        #expect(try reader.check().entries == 2)
        #expect(try reader.state() == ["items": ["milk"]])
    }

    @Test func aJournalOfANewerFormatIsRefusedNamingTheVersion() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try Journal(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { try $0.execute(sql: "UPDATE journal_info SET value = '99' WHERE key = 'version'") }
        try queue.close()
        #expect {
            _ = try Journal(path: path)
        } throws: { error in
            "\(error)".contains("has format version 99")
        }
    }

    @Test func aHugeRecordIsKeptWhole() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        // 5 MB in one payload and state (500 kB, still many pages, under sanitizers).
        let big = String(repeating: "0123456789", count: 500_000.scaledDownForSanitizers)
        do {
            let journal = try Journal(path: path, configuration: .init(snapshotInterval: 1))
            let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
            try await host.dispatch("tally.push", JSONValue.object(["item": .string(big)])).value
            try journal.close()
        }
        let reader = try Journal.existing(at: path)
        #expect(try reader.check().entries == 1)
        #expect(try reader.state() == ["items": [.string(big)]])
        #expect(try reader.entries().first?.payload == ["item": .string(big)])
    }
}
