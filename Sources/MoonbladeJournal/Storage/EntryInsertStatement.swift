import GRDB
import GRDBSQLite

/// The insert of entry rows, bound through SQLite's C API: the texts (the payload's and the patch's
/// JSON among them) are written as bytes into one buffer that SQLite reads in place, and the row's
/// checksum is taken from the very bytes bound.
///
/// GRDB's `StatementArguments` cost about six times SQLite's own insert per row (an array of
/// `DatabaseValue`s, then key paths and a closure per argument), and building the texts as `String`s
/// as much again; the entries insert runs once per dispatch, on the writer's hot path. Snapshots and
/// reads stay on GRDB. One is made per batch: its buffer is reused from row to row.
struct EntryInsertStatement {
    private static let sql = """
        INSERT INTO entries (seq, time, name, kind, payload, plugin, plugin_version, outcome, error, duration, patch, target, checksum)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// Kept so GRDB's statement cache cannot finalize the SQLite statement while this is used.
    private let statement: Statement
    private let connection: SQLiteConnection?
    /// The current row's texts, one after another.
    private var texts: [UInt8] = []

    /// The statement for `db`: compiled once per connection (GRDB's cache), looked up per batch.
    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        connection = db.sqliteConnection
        texts.reserveCapacity(256)
    }

    /// Inserts `entry`'s row.
    mutating func insert(_ entry: JournalEntry) throws {
        let (outcome, error): (StaticString, String?) =
            switch entry.outcome {
            case .applied: ("applied", nil)
            case .started: ("started", nil)
            case .failed(let message): ("failed", message)
            }
        texts.removeAll(keepingCapacity: true)
        let name = append(entry.name)
        let kind = append(entry.kind.rawValue)
        let payload = entry.payload.map { payload in append { payload.writeJSON(to: &$0) } }
        let plugin = append(entry.plugin)
        let outcomeText = append { bytes in outcome.withUTF8Buffer { bytes.append(contentsOf: $0) } }
        let errorText = append(error)
        let patch = append { entry.patch.writeJSON(to: &$0) }
        let sqliteStatement = statement.sqliteStatement
        let failedBinding = texts.withUnsafeBufferPointer { texts in
            var row = RowBinder(statement: sqliteStatement, texts: texts)
            row.bind(Int64(entry.sequence))
            row.bind(entry.time.timeIntervalSince1970)
            row.bind(text: name)
            row.bind(text: kind)
            row.bind(text: payload)
            row.bind(text: plugin)
            row.bind(entry.pluginVersion.map(Int64.init))
            row.bind(text: outcomeText)
            row.bind(text: errorText)
            row.bind(entry.duration.timeInterval)
            row.bind(text: patch)
            row.bind(entry.target.map(Int64.init))
            row.bindChecksum()
            // Stepped while the texts SQLite reads in place are alive.
            return row.failure ?? sqlite3_step(sqliteStatement)
        }
        try finish(failedBinding)
    }

    /// Appends `text`'s bytes to the row's texts; returns where they are (nil for no text).
    private mutating func append(_ text: String?) -> Range<Int>? {
        guard let text else { return nil }
        return append { $0.append(contentsOf: text.utf8) }
    }

    /// Appends what `write` writes to the row's texts; returns where it is.
    private mutating func append(_ write: (inout [UInt8]) -> Void) -> Range<Int> {
        let start = texts.count
        write(&texts)
        return start..<texts.count
    }

    /// Resets the statement after a step that returned `code` (or a binding that failed), dropping
    /// the bindings into the buffer; throws SQLite's error unless the row went in.
    private func finish(_ code: CInt) throws {
        let sqliteStatement = statement.sqliteStatement
        // Read before the reset, which may replace it.
        let message = code == SQLITE_DONE ? nil : sqlite3_errmsg(connection).map { String(cString: $0) }
        sqlite3_reset(sqliteStatement)
        sqlite3_clear_bindings(sqliteStatement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql)
        }
    }
}

/// Binds a row's values in column order and hashes them as it goes.
private struct RowBinder {
    let statement: SQLiteStatement
    /// The row's texts, which ``bind(text:)`` binds in place: alive until the statement is reset.
    let texts: UnsafeBufferPointer<UInt8>
    private var column: CInt = 0
    private var checksum = RowChecksum()
    /// The first binding's error code, if one failed (only a bug or memory exhaustion makes one).
    private(set) var failure: CInt?

    init(statement: SQLiteStatement, texts: UnsafeBufferPointer<UInt8>) {
        self.statement = statement
        self.texts = texts
    }

    mutating func bind(_ value: Int64?) {
        guard let value else { return bindNull() }
        checksum.add(integer: value)
        check(sqlite3_bind_int64(statement, next(), value))
    }

    mutating func bind(_ value: Double) {
        checksum.add(double: value)
        check(sqlite3_bind_double(statement, next(), value))
    }

    /// Binds the text at `range` of the row's texts, in place (`SQLITE_STATIC`).
    mutating func bind(text range: Range<Int>?) {
        guard let range else { return bindNull() }
        let utf8 = UnsafeBufferPointer(rebasing: texts[range])
        checksum.add(text: utf8)
        // A text's pointer must not be nil, which SQLite would bind as NULL: an empty text (or an
        // empty buffer) points at a constant byte.
        let base = utf8.isEmpty ? nil : utf8.baseAddress
        let pointer = UnsafeRawPointer(base ?? UnsafePointer(emptyText)).assumingMemoryBound(to: CChar.self)
        // SQLite takes a text's length as a C int: a longer one is its own "too big", not a trap.
        guard let count = CInt(exactly: utf8.count) else { return check(SQLITE_TOOBIG) }
        check(sqlite3_bind_text(statement, next(), pointer, count, sqliteStatic))
    }

    /// Binds the checksum of everything bound so far, as the last column.
    mutating func bindChecksum() {
        check(sqlite3_bind_int64(statement, next(), checksum.stored))
    }

    private mutating func bindNull() {
        checksum.addNull()
        check(sqlite3_bind_null(statement, next()))
    }

    private mutating func next() -> CInt {
        column += 1
        return column
    }

    private mutating func check(_ code: CInt) {
        if code != SQLITE_OK && failure == nil { failure = code }
    }
}

/// SQLite's `SQLITE_STATIC`: the bound bytes stay where they are until the statement is reset.
private let sqliteStatic: sqlite3_destructor_type? = nil
/// Where an empty text points: a byte that lives as long as the process.
private nonisolated(unsafe) let emptyText: UnsafeMutablePointer<UInt8> = {
    let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    byte.initialize(to: 0)
    return byte
}()
