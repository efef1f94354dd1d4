import Foundation
import GRDB
import MoonbladeHost
import Synchronization

/// The journal's SQLite file, through GRDB: the schema, and reading and writing rows.
///
/// Tables: `journal_info` (the format and its version, so another SQLite file is refused),
/// `entries` (one row per dispatch), `snapshots` (whole states, each as of a sequence) and
/// `plugin_versions` (which version of each plugin the states are kept by, from a sequence on).
final class JournalDatabase: Sendable {
    static let format = "moonblade-journal"
    static let formatVersion = "1"

    let file: String
    private let queue: DatabaseQueue
    /// Held by a journal that writes to a file: one writer per file.
    private let lock: JournalLock?
    /// Whether ``close()`` has closed the queue; held while the queue is used.
    private let isClosed = Mutex(false)

    /// Opens the journal at `path`, or one in memory when `path` is nil.
    ///
    /// - Parameters:
    ///   - create: whether a missing file, or an empty one, becomes a new journal (else an error).
    ///   - strict: whether every commit is synced to disk (`synchronous = FULL`) rather than only
    ///     written to the write-ahead log (`NORMAL`, which survives a crash of the process).
    init(path: String?, create: Bool, strict: Bool) throws(JournalError) {
        file = path ?? ":memory:"
        if let path {
            try Self.checkHeader(path, create: create)
        }
        // Taken before SQLite touches the file, so a refused journal changes nothing.
        lock = try path.flatMap { path throws(JournalError) in create ? try JournalLock(file: path) : nil }
        var configuration = Configuration()
        configuration.label = "moonblade.journal"
        configuration.prepareDatabase { db in
            if path != nil && create {
                // WAL: a commit appends to the log instead of rewriting pages; readers never block it.
                // (A reader leaves the file as it is: a journal is in WAL mode from its creation.)
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError(message: "cannot switch to WAL mode (got \(mode ?? "nothing"))")
                }
            }
            try db.execute(sql: "PRAGMA synchronous = \(strict ? "FULL" : "NORMAL")")
        }
        do {
            queue =
                try path.map { try DatabaseQueue(path: $0, configuration: configuration) }
                ?? DatabaseQueue(configuration: configuration)
            if create {
                try queue.write { db in try Self.prepareSchema(db, create: true) }
            } else {
                try queue.read { db in try Self.prepareSchema(db, create: false) }
            }
        } catch let error as JournalError {
            lock?.release()
            throw error
        } catch {
            lock?.release()
            throw JournalError(file: file, problem: Self.describe(error))
        }
    }

    /// Refuses a file too short to hold SQLite's 100-byte header: SQLite would take one of under 16
    /// bytes for an empty database, and a journal cut that short would silently start afresh.
    private static func checkHeader(_ path: String, create: Bool) throws(JournalError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if create { return }
            throw JournalError(file: path, problem: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw JournalError(file: path, problem: "cannot be opened (it is a directory)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if (1..<100).contains(size) {
            throw JournalError(file: path, problem: "is cut short (\(size) bytes, less than an SQLite header): not a whole journal")
        }
    }

    /// Checks the file is a journal of this format, creating the tables in a new one (only with
    /// `create`: without it nothing is written).
    private static func prepareSchema(_ db: Database, create: Bool) throws {
        if try db.tableExists("journal_info") {
            let info = try Row.fetchAll(db, sql: "SELECT key, value FROM journal_info")
            var values: [String: String] = [:]
            for row in info {
                if let key = try? row.decode(String.self, forColumn: "key"), let value = try? row.decode(String.self, forColumn: "value") {
                    values[key] = value
                }
            }
            guard values["format"] == format else { throw JournalFormatProblem("is not a Moonblade journal") }
            guard values["version"] == formatVersion else {
                throw JournalFormatProblem("has format version \(values["version"] ?? "?"), this moonblade reads \(formatVersion)")
            }
            guard try db.tableExists("entries"), try db.tableExists("snapshots") else {
                throw JournalFormatProblem("misses its entries or snapshots table")
            }
            // Journals written before rows had checksums get the column when opened for writing; their
            // old rows stay unchecked.
            for table in ["entries", "snapshots"] where try create && !db.columns(in: table).contains(where: { $0.name == "checksum" }) {
                try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN checksum INTEGER")
            }
            // Journals written before plugin versions were recorded get the table when opened for
            // writing; their earlier states have no versions (read as the loaded ones: see
            // `PluginVersionHistory`). Read-only, such a journal has no table and no versions.
            if create {
                try db.execute(sql: Self.pluginVersionsTable)
            }
            return
        }
        guard try String.fetchAll(db, sql: "SELECT name FROM sqlite_master").isEmpty else {
            throw JournalFormatProblem("is an SQLite database but not a Moonblade journal")
        }
        guard create else { throw JournalFormatProblem("is empty: no journal in it") }
        try db.execute(
            sql: """
                CREATE TABLE journal_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO journal_info VALUES ('format', '\(format)'), ('version', '\(formatVersion)');
                CREATE TABLE entries (
                    seq INTEGER PRIMARY KEY, time REAL NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
                    payload TEXT, plugin TEXT, plugin_version INTEGER, outcome TEXT NOT NULL, error TEXT,
                    duration REAL NOT NULL, patch TEXT NOT NULL, target INTEGER, checksum INTEGER);
                CREATE TABLE snapshots (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, time REAL NOT NULL,
                    state TEXT NOT NULL, checksum INTEGER);
                """ + Self.pluginVersionsTable)
    }

    /// One row per plugin whose version changed: the states from entry `seq` on (the state after it)
    /// are kept by `version` of `plugin`, until a later row for the plugin.
    private static let pluginVersionsTable = """
        CREATE TABLE IF NOT EXISTS plugin_versions (
            id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, plugin TEXT NOT NULL,
            version INTEGER NOT NULL, checksum INTEGER);
        """

    /// Writes `entries`, `snapshots` and plugin `versions` in one transaction.
    func append(
        _ entries: [JournalEntry], snapshots: [(sequence: Int, state: JSONValue)], versions: [PluginVersionHistory.Change] = []
    ) throws(JournalError) {
        try access { () throws in
            try queue.write { db in
                var insert = try EntryInsertStatement(db)
                for entry in entries {
                    try insert.insert(entry)
                }
                for snapshot in snapshots {
                    let values: [DatabaseValue] = [
                        snapshot.sequence.databaseValue, Date().timeIntervalSince1970.databaseValue,
                        snapshot.state.jsonString().databaseValue,
                    ]
                    try db.execute(
                        sql: "INSERT INTO snapshots (seq, time, state, checksum) VALUES (?, ?, ?, ?)",
                        arguments: StatementArguments(values + [RowChecksum(values).stored.databaseValue]))
                }
                for change in versions {
                    let values = [change.sequence.databaseValue, change.plugin.databaseValue, change.version.databaseValue]
                    try db.execute(
                        sql: "INSERT INTO plugin_versions (seq, plugin, version, checksum) VALUES (?, ?, ?, ?)",
                        arguments: StatementArguments(values + [RowChecksum(values).stored.databaseValue]))
                }
            }
        }
    }

    /// The entries with `from <= seq <= until`, in order.
    func entries(from: Int = 0, until: Int = .max) throws(JournalError) -> [JournalEntry] {
        let rows = try access { () throws in
            try queue.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM entries WHERE seq >= ? AND seq <= ? ORDER BY seq", arguments: [from, until])
            }
        }
        return try rows.map { row throws(JournalError) in try entry(from: row) }
    }

    /// The highest sequence written, 0 when there is none.
    ///
    /// - Throws: ``JournalError`` when an entry is numbered below 1: a row whose number was damaged
    ///   (SQLite reads a zeroed row as number 0), which would otherwise make the journal look shorter
    ///   and let the next entries reuse the numbers of recorded ones.
    func lastSequence() throws(JournalError) -> Int {
        let row = try access { () throws in
            try queue.read { db in try Row.fetchOne(db, sql: "SELECT min(seq) AS first, max(seq) AS last FROM entries") }
        }
        guard let row, let first: Int = try StoredRow.column(row, "first", what: "the entries", file: file) else { return 0 }
        guard first >= 1 else {
            throw JournalError(file: file, problem: "is damaged: an entry is numbered \(first)")
        }
        return try StoredRow.column(row, "last", what: "the entries", file: file)
    }

    /// The latest snapshot as of `sequence` or before: the one with the highest sequence, and of
    /// those the last written.
    func snapshot(atOrBefore sequence: Int) throws(JournalError) -> (sequence: Int, state: JSONValue)? {
        let row = try access { () throws in
            try queue.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT * FROM snapshots WHERE seq <= ? ORDER BY seq DESC, id DESC LIMIT 1",
                    arguments: [sequence])
            }
        }
        guard let row else { return nil }
        var stored = try StoredRow(row, columns: Self.snapshotColumns, what: "a snapshot", file: file)
        let snapshotSequence: Int = try stored.value("seq")
        stored.what = "the snapshot as of \(snapshotSequence)"
        let state = try json(try stored.value("state"), what: stored.what)
        guard stored.isIntact else {
            throw JournalError(file: file, problem: "\(stored.what) is damaged: its row does not match its checksum")
        }
        return (snapshotSequence, state)
    }

    /// How many snapshots there are.
    func snapshotCount() throws(JournalError) -> Int {
        try access { () throws in try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? 0 } }
    }

    /// SQLite's own check of the file: empty when it is sound, else what it found.
    func integrityProblems() throws(JournalError) -> [String] {
        let results = try access { () throws in try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } }
        return results == ["ok"] ? [] : results
    }

    func close() {
        isClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            try? queue.close()
            lock?.release()
        }
    }

    /// The columns a row's checksum covers, in order.
    private static let entryColumns = [
        "seq", "time", "name", "kind", "payload", "plugin", "plugin_version", "outcome", "error", "duration", "patch", "target",
    ]
    private static let snapshotColumns = ["seq", "time", "state"]

    private func entry(from row: Row) throws(JournalError) -> JournalEntry {
        var stored = try StoredRow(row, columns: Self.entryColumns, what: "an entry", file: file)
        let sequence: Int = try stored.value("seq")
        stored.what = "entry \(sequence)"
        let what = stored.what
        let kindName: String = try stored.value("kind")
        guard let kind = JournalEntry.Kind(rawValue: kindName) else {
            throw JournalError(file: file, problem: "\(what): unknown kind \(kindName)")
        }
        let outcome: JournalEntry.Outcome
        switch try stored.value("outcome") as String {
        case "applied": outcome = .applied
        case "started": outcome = .started
        case "failed": outcome = .failed(try stored.value("error") ?? "")
        case let other: throw JournalError(file: file, problem: "\(what): unknown outcome \(other)")
        }
        let payloadText: String? = try stored.value("payload")
        let patch: StatePatch
        do {
            patch = try StatePatch(json: try json(try stored.value("patch"), what: "entry \(sequence)'s patch"))
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(file: file, problem: "\(what): its patch is malformed: \(error)")
        }
        var entry = JournalEntry(
            sequence: sequence, time: Date(timeIntervalSince1970: try stored.value("time")),
            name: try stored.value("name"), kind: kind,
            payload: try payloadText.map { text throws(JournalError) in try json(text, what: "entry \(sequence)'s payload") },
            plugin: try stored.value("plugin"), pluginVersion: try stored.value("plugin_version"),
            outcome: outcome, duration: .seconds(try stored.value("duration") as Double), patch: patch,
            target: try stored.value("target"))
        entry.isDamaged = !stored.isIntact
        return entry
    }

    private func json(_ text: String, what: String) throws(JournalError) -> JSONValue {
        do {
            return try JSONValue(json: text)
        } catch {
            throw JournalError(file: file, problem: "\(what) is not valid JSON: \(error)")
        }
    }

    /// Runs a database access, turning what SQLite and GRDB throw into a ``JournalError`` naming the file.
    ///
    /// Accesses and ``close()`` exclude each other: GRDB's queue, once closed, hands SQLite a freed
    /// connection (a crash), so an access after close (a strict dispatch racing it, a reader called
    /// late) is an error instead. The queue serializes accesses anyway, so the lock costs no parallelism.
    private func access<Result>(_ body: () throws -> Result) throws(JournalError) -> Result {
        try isClosed.withLock { closed throws(JournalError) in
            guard !closed else { throw JournalError(file: file, problem: "is closed") }
            do {
                return try body()
            } catch {
                throw JournalError(file: file, problem: Self.describe(error))
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let problem as JournalFormatProblem: return problem.message
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_NOTADB: return "is not a journal (not an SQLite database)"
            case .SQLITE_CORRUPT: return "is corrupted (SQLite: \(error.message ?? "database disk image is malformed"))"
            case .SQLITE_CANTOPEN: return "cannot be opened (\(error.message ?? "unable to open database file"))"
            default: return "SQLite error: \(error.message ?? "\(error.resultCode)")"
            }
        default: return "\(error)"
        }
    }
}

/// The file is an SQLite database, but not a journal this code can read.
private struct JournalFormatProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension JournalDatabase {
    /// Every plugin version change, in the order they apply (by sequence, then as written); none for a
    /// journal from before versions were recorded.
    ///
    /// - Throws: ``JournalError`` naming a row that is unreadable or does not match its checksum.
    func pluginVersionChanges() throws(JournalError) -> [PluginVersionHistory.Change] {
        let rows = try access { () throws in
            try queue.read { db in
                guard try db.tableExists("plugin_versions") else { return [Row]() }
                return try Row.fetchAll(db, sql: "SELECT * FROM plugin_versions ORDER BY seq, id")
            }
        }
        return try rows.map { row throws(JournalError) in
            let stored = try StoredRow(row, columns: ["seq", "plugin", "version"], what: "a plugin version row", file: file)
            let change = PluginVersionHistory.Change(
                sequence: try stored.value("seq"), plugin: try stored.value("plugin"), version: try stored.value("version"))
            guard stored.isIntact else {
                throw JournalError(
                    file: file,
                    problem: "the version row of plugin \(change.plugin) as of \(change.sequence) is damaged: "
                        + "its row does not match its checksum")
            }
            return change
        }
    }

    /// Every snapshot's sequence, and for each sequence the last written: what recovery would use.
    func snapshotSequences() throws(JournalError) -> [Int] {
        try access { () throws in try queue.read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT seq FROM snapshots ORDER BY seq") } }
    }
}
