import CLua

/// The Lua strings of the field names one `push` or `decode` has met, so that pushing a field's key is
/// one `lua_pushvalue` instead of a `lua_pushlstring`, which hashes the bytes and searches Lua's
/// string table every time (a third of what hand-written C-API code spends on a struct).
///
/// The strings sit in ``capacity`` stack slots the coder reserves below its root value, so they stay
/// alive while it runs and go with it, and keeping them allocates nothing in Lua (no garbage). The
/// Swift side finds a name's slot by its bytes, in a small open-addressed table: names of 1 to 16
/// bytes (nearly all field names), the first ``capacity`` of them; other names are pushed as they are.
///
/// A value type with no reference counting: the root value's coder makes it and calls ``release()``
/// when the root is done; child coders (nested containers) share its storage.
struct LuaKeyStrings {
    /// How many names are kept: a state has few field names.
    static let capacity: Int32 = 16
    private static let slotCount = 32

    /// A kept name: its bytes, zero-padded to 16, its length and its slot above ``base``.
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count: Int32 = 0
        var slot: Int32 = 0  // 0: an empty entry
    }

    private let L: OpaquePointer
    /// The stack index below the reserved slots: name k (1-based) sits at `base + k`.
    let base: Int32
    /// `slotCount` entries, then one whose `slot` is how many names are kept.
    private let entries: UnsafeMutablePointer<Entry>

    /// Reserves the slots on top of the stack; nil when the stack cannot grow by that much.
    init?(reservingSlotsOn L: OpaquePointer) {
        guard lua_checkstack(L, Self.capacity + LuaCoding.slotMargin) != 0 else { return nil }
        self.L = L
        base = lua_gettop(L)
        lua_settop(L, base + Self.capacity)
        entries = .allocate(capacity: Self.slotCount + 1)
        entries.initialize(repeating: Entry(), count: Self.slotCount + 1)
    }

    /// Frees the Swift side; the caller cuts the stack back to ``base``.
    func release() {
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
            hash ^= hash >> 29
            var index = Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)
            while entries[index].slot != 0 {
                let entry = entries[index]
                if entry.low == words.0 && entry.high == words.1 && entry.count == count {
                    lua_pushvalue(L, base + entry.slot)
                    return
                }
                index = (index + 1) & (Self.slotCount - 1)
            }
            pushUnkept(bytes)
            let kept = entries[Self.slotCount].slot
            guard kept < Self.capacity else { return }
            lua_copy(L, -1, base + kept + 1)
            entries[index] = Entry(low: words.0, high: words.1, count: count, slot: kept + 1)
            entries[Self.slotCount].slot = kept + 1
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
