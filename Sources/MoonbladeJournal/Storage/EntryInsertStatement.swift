import GRDB
import GRDBSQLite

/// The insert of one entry row, bound through SQLite's C API, with the row's checksum taken from the
/// very bytes it binds.
///
/// GRDB's `StatementArguments` cost about six times SQLite's own insert per row (an array of
/// `DatabaseValue`s, then key paths and a closure per argument), and the entries insert runs once per
/// dispatch: it is the writer's hot path. Snapshots and reads stay on GRDB.
struct EntryInsertStatement {
    private static let sql = """
        INSERT INTO entries (seq, time, name, kind, payload, plugin, plugin_version, outcome, error, duration, patch, target, checksum)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// Kept so GRDB's statement cache cannot finalize the SQLite statement while this is used.
    private let statement: Statement
    private let connection: SQLiteConnection?

    /// The statement for `db`: compiled once per connection (GRDB's cache), looked up per batch.
    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        connection = db.sqliteConnection
    }

    /// Inserts `entry`'s row.
    func insert(_ entry: JournalEntry) throws {
        let (outcome, error): (String, String?) =
            switch entry.outcome {
            case .applied: ("applied", nil)
            case .started: ("started", nil)
            case .failed(let message): ("failed", message)
            }
        var row = RowBinder(statement: statement.sqliteStatement)
        row.bind(Int64(entry.sequence))
        row.bind(entry.time.timeIntervalSince1970)
        row.bind(entry.name)
        row.bind(entry.kind.rawValue)
        row.bind(entry.payload?.jsonString())
        row.bind(entry.plugin)
        row.bind(entry.pluginVersion.map(Int64.init))
        row.bind(outcome)
        row.bind(error)
        row.bind(entry.duration.timeInterval)
        row.bind(entry.patch.jsonText)
        row.bind(entry.target.map(Int64.init))
        row.bindChecksum()
        try run(failedBinding: row.failure)
    }

    /// Steps the bound statement once and resets it, throwing SQLite's error (or the binding's).
    private func run(failedBinding: CInt?) throws {
        let sqliteStatement = statement.sqliteStatement
        let code = failedBinding ?? sqlite3_step(sqliteStatement)
        // Read before the reset, which may replace it.
        let message = code == SQLITE_DONE ? nil : sqlite3_errmsg(connection).map { String(cString: $0) }
        sqlite3_reset(sqliteStatement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql)
        }
    }
}

/// Binds a row's values in column order and hashes them as it goes.
private struct RowBinder {
    let statement: SQLiteStatement
    private var column: CInt = 0
    private var checksum = RowChecksum()
    /// The first binding's error code, if one failed (only a bug or memory exhaustion makes one).
    private(set) var failure: CInt?

    init(statement: SQLiteStatement) {
        self.statement = statement
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

    mutating func bind(_ value: String?) {
        guard var text = value else { return bindNull() }
        let column = next()
        text.withUTF8 { utf8 in
            checksum.add(text: utf8)
            // SQLite copies the text (its buffer is reused from row to row); "" rather than a nil
            // pointer for an empty text, which SQLite would bind as NULL.
            let code =
                if let base = utf8.baseAddress {
                    sqlite3_bind_text(statement, column, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), CInt(utf8.count), sqliteTransient)
                } else {
                    sqlite3_bind_text(statement, column, "", 0, sqliteTransient)
                }
            check(code)
        }
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

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
