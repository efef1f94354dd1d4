import CLua

/// The Lua strings of the field names one `push` or `decode` has met, so that pushing a field's key is
/// one `lua_rawgeti` instead of a `lua_pushlstring`, which hashes the bytes and searches Lua's string
/// table every time (a third of what hand-written C-API code spends on a struct).
///
/// The strings live in a table (the anchor) that the coder pushes below its root value, so they stay
/// alive while it runs and go with it. The Swift side finds a name's place in the anchor by its bytes,
/// in a small open-addressed table: names of 1 to 16 bytes (nearly all field names), and at most
/// ``capacity`` of them; other names are pushed as they are.
final class LuaKeyStrings {
    /// How many names are kept; a state has few field names, and the table stays half empty.
    static let capacity: Int32 = 32
    private static let slotCount = 64

    /// A kept name: its bytes, zero-padded to 16, its length and its position in the anchor.
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count: Int32 = 0
        var position: Int32 = 0  // 0: an empty slot
    }

    private let L: OpaquePointer
    /// The stack index of the anchor table.
    private let anchor: Int32
    private let entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var kept: Int32 = 0

    /// Pushes the anchor onto the stack; it must stay where it is while this object is used.
    init(pushingAnchorOnto L: OpaquePointer) {
        self.L = L
        lua_createtable(L, Self.capacity, 0)
        anchor = lua_gettop(L)
        entries = .allocate(capacity: Self.slotCount)
        entries.initialize(repeating: Entry(), count: Self.slotCount)
    }

    deinit {
        entries.deallocate()
    }

    /// Pushes `name` as a Lua string.
    @inline(__always)
    func push(_ name: String) {
        var name = name
        name.withUTF8 { bytes in
            guard bytes.count > 0, bytes.count <= 16 else { return pushUnkept(bytes) }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            let count = Int32(bytes.count)
            var hash = (words.0 ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15 ^ words.1 &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            var slot = Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)
            while true {
                let entry = entries[slot]
                if entry.position == 0 { break }
                if entry.low == words.0 && entry.high == words.1 && entry.count == count {
                    lua_rawgeti(L, anchor, lua_Integer(entry.position))
                    return
                }
                slot = (slot + 1) & (Self.slotCount - 1)
            }
            pushUnkept(bytes)
            guard kept < Self.capacity else { return }
            kept += 1
            lua_pushvalue(L, -1)
            lua_rawseti(L, anchor, lua_Integer(kept))
            entries[slot] = Entry(low: words.0, high: words.1, count: count, position: kept)
        }
    }

    private func pushUnkept(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// Pushes `name` through `strings` when there are some (inside a root value), else as it is.
    @inline(__always)
    static func push(_ name: String, through strings: LuaKeyStrings?, _ L: OpaquePointer) {
        if let strings { strings.push(name) } else { LuaStack(L).push(name) }
    }
}
