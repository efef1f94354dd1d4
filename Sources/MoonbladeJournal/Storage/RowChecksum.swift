import GRDB

/// A 64-bit FNV-1a hash of a row's values, stored beside them: a row that changed on disk (a flipped
/// bit, another row's contents copied over it) no longer matches its checksum when it is read.
///
/// SQLite finds damage to its own structure, not to the values in a row; this finds the rest. The
/// writer adds each value as it binds it (``addNull()``, ``add(integer:)``, ``add(double:)``,
/// ``add(text:)``); a reader hashes the values it read (``init(_:)``): both hash the same bytes.
struct RowChecksum {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The checksum of no values yet.
    init() {}

    /// The checksum of `values`, in their order.
    init(_ values: [DatabaseValue]) {
        for value in values {
            add(value)
        }
    }

    /// The checksum as SQLite stores it.
    var stored: Int64 { Int64(bitPattern: hash) }

    // A tag per storage class, so `NULL`, `''` and `0` differ, and a length before each text, so two
    // values cannot trade bytes.

    mutating func addNull() { add(byte: 0) }

    mutating func add(integer: Int64) {
        add(byte: 1)
        add(UInt64(bitPattern: integer))
    }

    mutating func add(double: Double) {
        add(byte: 2)
        add(double.bitPattern)
    }

    /// Adds a text value from its UTF-8 bytes.
    mutating func add(text utf8: UnsafeBufferPointer<UInt8>) {
        add(byte: 3)
        add(UInt64(utf8.count))
        add(bytes: UnsafeRawBufferPointer(utf8))
    }

    private mutating func add(_ value: DatabaseValue) {
        switch value.storage {
        case .null: addNull()
        case .int64(let number): add(integer: number)
        case .double(let number): add(double: number)
        case .string(var text): text.withUTF8 { add(text: $0) }
        case .blob(let data):
            add(byte: 4)
            add(UInt64(data.count))
            data.withUnsafeBytes { add(bytes: $0) }
        }
    }

    /// Adds `bytes` from their buffer: iterating a string's UTF-8 view or a `Data` byte by byte costs
    /// several times the hash itself (payloads, patches and snapshots are most of a journal's bytes).
    private mutating func add(bytes: UnsafeRawBufferPointer) {
        var hash = self.hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        self.hash = hash
    }

    private mutating func add(_ word: UInt64) {
        var hash = self.hash
        for shift in stride(from: 0, to: 64, by: 8) {
            hash = (hash ^ (word >> UInt64(shift) & 0xff)) &* 0x0000_0100_0000_01B3
        }
        self.hash = hash
    }

    private mutating func add(byte: UInt8) {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}
