import GRDB

/// A 64-bit FNV-1a hash of a row's values, stored beside them: a row that changed on disk (a flipped
/// bit, another row's contents copied over it) no longer matches its checksum when it is read.
///
/// SQLite finds damage to its own structure, not to the values in a row; this finds the rest.
struct RowChecksum {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The checksum of `values`, in their order.
    init(_ values: [DatabaseValue]) {
        for value in values {
            add(value)
        }
    }

    /// The checksum as SQLite stores it.
    var stored: Int64 { Int64(bitPattern: hash) }

    private mutating func add(_ value: DatabaseValue) {
        // A tag per storage class, so `NULL`, `''` and `0` differ, and a length before each text, so
        // two values cannot trade bytes.
        switch value.storage {
        case .null: add(byte: 0)
        case .int64(let number):
            add(byte: 1)
            add(UInt64(bitPattern: number))
        case .double(let number):
            add(byte: 2)
            add(number.bitPattern)
        case .string(var text):
            add(byte: 3)
            add(UInt64(text.utf8.count))
            text.withUTF8 { add(bytes: UnsafeRawBufferPointer($0)) }
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
        for shift in stride(from: 0, to: 64, by: 8) {
            add(byte: UInt8(truncatingIfNeeded: word >> UInt64(shift)))
        }
    }

    private mutating func add(byte: UInt8) {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}
