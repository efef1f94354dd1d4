import GRDB

/// A journal row's checked columns, each read from SQLite once: the typed values a reader takes and
/// the checksum that tells whether the row is intact both come from the same values.
struct StoredRow {
    private let file: String
    private let columns: [String]
    private let values: [DatabaseValue]
    /// The checksum stored with the row; nil for a row written before rows had one.
    private let checksum: Int64?
    /// What the row is, as errors name it (`entry 12`, `the snapshot as of 40`).
    var what: String

    /// Reads `columns` (the ones the checksum covers, in its order) and the checksum from `row`.
    ///
    /// - Throws: ``JournalError`` naming `what` when a column is missing or the checksum is not an integer.
    init(_ row: Row, columns: [String], what: String, file: String) throws(JournalError) {
        self.file = file
        self.columns = columns
        self.what = what
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count)
        for name in columns {
            values.append(try Self.column(row, name, what: what, file: file))
        }
        self.values = values
        checksum = row.hasColumn("checksum") ? try Self.column(row, "checksum", what: what, file: file) : nil
    }

    /// The value of `name` (one of the columns read) as a `Value`; a value of another type (a damaged
    /// row) is an error naming the row, where GRDB's subscripts would stop the process.
    func value<Value: DatabaseValueConvertible>(_ name: String) throws(JournalError) -> Value {
        guard let index = columns.firstIndex(of: name) else {
            preconditionFailure("\(name) is not among the columns read: \(columns)")
        }
        guard let value = Value.fromDatabaseValue(values[index]) else {
            throw JournalError(file: file, problem: "\(what): its \(name) is unreadable (\(values[index]) is not a \(Value.self))")
        }
        return value
    }

    /// Whether the values match the row's checksum; true for a row written before rows had one.
    var isIntact: Bool {
        guard let checksum else { return true }
        return RowChecksum(values).stored == checksum
    }

    /// The value of `name` in `row` (any row of the journal); a missing column or a value of another
    /// type is an error naming `what` the row is.
    static func column<Value: DatabaseValueConvertible>(_ row: Row, _ name: String, what: String, file: String) throws(JournalError) -> Value {
        do {
            return try row.decode(Value.self, forColumn: name)
        } catch {
            throw JournalError(file: file, problem: "\(what): its \(name) is unreadable (\(error))")
        }
    }
}
