/// The fuzzer's input read as a stream of choices: each read takes the next bytes, and an exhausted
/// input reads as zeros, so every input means something and a shorter one means less.
public struct FuzzBytes {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The input libFuzzer hands to `LLVMFuzzerTestOneInput`.
    public init(start: UnsafePointer<UInt8>?, count: Int) {
        self.init(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    }

    /// Whether every byte has been read.
    public var isExhausted: Bool { position >= bytes.count }

    /// The next byte (0 past the end).
    public mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    /// A number in `0..<count`.
    public mutating func choice(_ count: Int) -> Int { Int(byte()) % count }

    /// A flag.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// The next eight bytes as a 64-bit pattern.
    public mutating func bits64() -> UInt64 {
        (0..<8).reduce(0) { bits, _ in bits << 8 | UInt64(byte()) }
    }

    /// Up to `limit` bytes, as many as the next byte says.
    public mutating func chunk(limit: Int = 32) -> [UInt8] {
        let count = min(choice(limit + 1), bytes.count - min(position, bytes.count))
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// The bytes not read yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
