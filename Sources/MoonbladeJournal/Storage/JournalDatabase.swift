import Foundation
import GRDB
import MoonbladeHost

/// The journal's SQLite file, through GRDB: the schema, and reading and writing rows.
///
/// Tables: `journal_info` (the format and its version, so another SQLite file is refused),
/// `entries` (one row per dispatch) and `snapshots` (whole states, each as of a sequence).
final class JournalDatabase: Sendable {
    static let format = "moonblade-journal"
    static let formatVersion = "1"

    let file: String
    private let queue: DatabaseQueue

    /// Opens the journal at `path`, or one in memory when `path` is nil.
    ///
    /// - Parameters:
    ///   - create: whether a missing file, or an empty one, becomes a new journal (else an error).
    ///   - strict: whether every commit is synced to disk (`synchronous = FULL`) rather than only
    ///     written to the write-ahead log (`NORMAL`, which survives a crash of the process).
    init(path: String?, create: Bool, strict: Bool) throws(JournalError) {
        file = path ?? ":memory:"
        if let path, !create, !FileManager.default.fileExists(atPath: path) {
            throw JournalError(file: path, problem: "no such file")
        }
        var configuration = Configuration()
        configuration.label = "moonblade.journal"
        configuration.prepareDatabase { db in
            if path != nil {
                // WAL: a commit appends to the log instead of rewriting pages; readers never block it.
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError(message: "cannot switch to WAL mode (got \(mode ?? "nothing"))")
                }
            }
            try db.execute(sql: "PRAGMA synchronous = \(strict ? "FULL" : "NORMAL")")
        }
        do {
            queue = try path.map { try DatabaseQueue(path: $0, configuration: configuration) }
                ?? DatabaseQueue(configuration: configuration)
            try queue.write { db in try Self.prepareSchema(db, create: create) }
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(file: file, problem: Self.describe(error))
        }
    }

    /// Checks the file is a journal of this format, creating the tables in a new one.
    private static func prepareSchema(_ db: Database, create: Bool) throws {
        if try db.tableExists("journal_info") {
            let info = try Row.fetchAll(db, sql: "SELECT key, value FROM journal_info")
            var values: [String: String] = [:]
            for row in info { values[row["key"]] = row["value"] }
            guard values["format"] == format else { throw JournalFormatProblem("is not a Moonblade journal") }
            guard values["version"] == formatVersion else {
                throw JournalFormatProblem("has format version \(values["version"] ?? "?"), this moonblade reads \(formatVersion)")
            }
            guard try db.tableExists("entries"), try db.tableExists("snapshots") else {
                throw JournalFormatProblem("misses its entries or snapshots table")
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
                    duration REAL NOT NULL, patch TEXT NOT NULL, target INTEGER);
                CREATE TABLE snapshots (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, time REAL NOT NULL,
                    state TEXT NOT NULL);
                """)
    }

    /// Writes `entries` and `snapshots` in one transaction.
    func append(_ entries: [JournalEntry], snapshots: [(sequence: Int, state: JSONValue)]) throws(JournalError) {
        try access { () throws in
            try queue.write { db in
                // Cached: compiled once per connection, and looked up once per batch (by its SQL text).
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO entries (seq, time, name, kind, payload, plugin, plugin_version, outcome, error, duration, patch, target)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for entry in entries {
                    try Self.insert(entry, with: insert)
                }
                for snapshot in snapshots {
                    try db.execute(
                        sql: "INSERT INTO snapshots (seq, time, state) VALUES (?, ?, ?)",
                        arguments: [snapshot.sequence, Date().timeIntervalSince1970, snapshot.state.jsonString()])
                }
            }
        }
    }

    private static func insert(_ entry: JournalEntry, with statement: Statement) throws {
        let (outcome, error): (String, String?) =
            switch entry.outcome {
            case .applied: ("applied", nil)
            case .started: ("started", nil)
            case .failed(let message): ("failed", message)
            }
        try statement.execute(
            arguments: [
                entry.sequence, entry.time.timeIntervalSince1970, entry.name, entry.kind.rawValue,
                entry.payload?.jsonString(), entry.plugin, entry.pluginVersion, outcome, error, entry.duration.timeInterval,
                entry.patch.jsonText, entry.target,
            ])
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
    func lastSequence() throws(JournalError) -> Int {
        try access { () throws in try queue.read { db in try Int.fetchOne(db, sql: "SELECT max(seq) FROM entries") ?? 0 } }
    }

    /// The latest snapshot as of `sequence` or before: the one with the highest sequence, and of
    /// those the last written.
    func snapshot(atOrBefore sequence: Int) throws(JournalError) -> (sequence: Int, state: JSONValue)? {
        let row = try access { () throws in
            try queue.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT seq, state FROM snapshots WHERE seq <= ? ORDER BY seq DESC, id DESC LIMIT 1",
                    arguments: [sequence])
            }
        }
        guard let row else { return nil }
        let snapshotSequence: Int = row["seq"]
        let text: String = row["state"]
        return (snapshotSequence, try json(text, what: "the snapshot as of \(snapshotSequence)"))
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
        try? queue.close()
    }

    private func entry(from row: Row) throws(JournalError) -> JournalEntry {
        let sequence: Int = row["seq"]
        guard let kind = JournalEntry.Kind(rawValue: row["kind"]) else {
            throw JournalError(file: file, problem: "entry \(sequence): unknown kind \(String(describing: row["kind"]))")
        }
        let outcome: JournalEntry.Outcome
        switch row["outcome"] as String {
        case "applied": outcome = .applied
        case "started": outcome = .started
        case "failed": outcome = .failed(row["error"] ?? "")
        case let other: throw JournalError(file: file, problem: "entry \(sequence): unknown outcome \(other)")
        }
        let payloadText: String? = row["payload"]
        let patch: StatePatch
        do {
            patch = try StatePatch(json: try json(row["patch"], what: "entry \(sequence)'s patch"))
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(file: file, problem: "entry \(sequence): its patch is malformed: \(error)")
        }
        return JournalEntry(
            sequence: sequence, time: Date(timeIntervalSince1970: row["time"]), name: row["name"], kind: kind,
            payload: try payloadText.map { text throws(JournalError) in try json(text, what: "entry \(sequence)'s payload") },
            plugin: row["plugin"], pluginVersion: row["plugin_version"], outcome: outcome,
            duration: .seconds(row["duration"] as Double), patch: patch, target: row["target"])
    }

    private func json(_ text: String, what: String) throws(JournalError) -> JSONValue {
        do {
            return try JSONValue(json: text)
        } catch {
            throw JournalError(file: file, problem: "\(what) is not valid JSON: \(error)")
        }
    }

    /// Runs a database access, turning what SQLite and GRDB throw into a ``JournalError`` naming the file.
    private func access<Result>(_ body: () throws -> Result) throws(JournalError) -> Result {
        do {
            return try body()
        } catch {
            throw JournalError(file: file, problem: Self.describe(error))
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
    /// Every snapshot's sequence, and for each sequence the last written: what recovery would use.
    func snapshotSequences() throws(JournalError) -> [Int] {
        try access { () throws in try queue.read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT seq FROM snapshots ORDER BY seq") } }
    }
}
