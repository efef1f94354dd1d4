import CLua
import Synchronization

/// The Lua strings of the field names one `push` or `decode` has met, so that pushing a field's key is
/// one `lua_pushvalue` instead of a `lua_pushlstring`, which hashes the bytes and searches Lua's
/// string table every time (a third of what hand-written C-API code spends on a struct).
///
/// The strings sit in ``capacity`` stack slots the coder reserves below its root value, so they stay
/// alive while it runs and go with it, and keeping them allocates nothing in Lua (no garbage). The
/// Swift side finds a name's slot by its bytes, in a small open-addressed table: names of 1 to 16
/// bytes (nearly all field names), the first ``capacity`` of them; other names are pushed as they are.
/// A synthesized `CodingKeys` value is found by its type and value, before its name is asked for.
///
/// A value type with no reference counting: the root value's coder makes it and calls ``release()``
/// when the root is done; child coders (nested containers) share its storage. The storage is reused
/// from one root to the next (a decode on the dispatch path would otherwise pay a 2 KB allocation), and
/// entries of earlier roots are told apart by a generation number instead of being cleared.
struct LuaKeyStrings {
    /// How many names are kept: a state has few field names.
    static let capacity: Int32 = 16
    /// How many coding-key values are remembered (synthesized `CodingKeys` values).
    private static let keyCapacity: Int32 = 32
    /// Larger than both capacities together, so a search always meets an empty entry.
    private static let entryCount = 64

    /// A kept name (its bytes zero-padded to 16, and its length) or a coding-key value (its type, its
    /// one byte, and length 0), with the slot above ``base`` of its string. It counts only when its
    /// generation is the current one.
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count: Int32 = 0
        var slot: Int32 = 0
        var generation: UInt32 = 0
    }

    /// One storage kept between roots (an address, 0 when taken); a second root running at the same
    /// time on another thread allocates its own.
    private static let spare = Atomic<Int>(0)

    private let L: OpaquePointer
    /// The stack index below the reserved slots: name k (1-based) sits at `base + k`.
    let base: Int32
    /// `entryCount` entries, then a header: kept names (`slot`), kept key values (`count`) and the
    /// current generation.
    private let entries: UnsafeMutablePointer<Entry>
    private let generation: UInt32

    /// Reserves the slots on top of the stack; nil when the stack cannot grow by that much.
    init?(reservingSlotsOn L: OpaquePointer) {
        guard lua_checkstack(L, Self.capacity + LuaCoding.slotMargin) != 0 else { return nil }
        self.L = L
        base = lua_gettop(L)
        lua_settop(L, base + Self.capacity)
        if let spare = UnsafeMutablePointer<Entry>(bitPattern: Self.spare.exchange(0, ordering: .acquiring)) {
            entries = spare
        } else {
            entries = .allocate(capacity: Self.entryCount + 1)
            entries.initialize(repeating: Entry(), count: Self.entryCount + 1)
        }
        var header = entries[Self.entryCount]
        header.generation &+= 1
        if header.generation == 0 {  // wrapped: no entry may look current
            entries.update(repeating: Entry(), count: Self.entryCount)
            header.generation = 1
        }
        header.slot = 0
        header.count = 0
        entries[Self.entryCount] = header
        generation = header.generation
    }

    /// Gives the storage back; the caller cuts the stack back to ``base``.
    func release() {
        let address = Int(bitPattern: entries)
        if !Self.spare.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged {
            entries.deallocate()
        }
    }

    /// The index of the entry for `(low, high, count)`, or of the empty entry where it would go.
    @inline(__always)
    private func find(_ low: UInt64, _ high: UInt64, _ count: Int32) -> Int {
        var hash = (low ^ UInt64(UInt32(bitPattern: count))) &* 0x9E37_79B9_7F4A_7C15 ^ high &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 29
        var index = Int(truncatingIfNeeded: hash) & (Self.entryCount - 1)
        while entries[index].generation == generation {
            let entry = entries[index]
            if entry.low == low && entry.high == high && entry.count == count { return index }
            index = (index + 1) & (Self.entryCount - 1)
        }
        return index
    }

    /// Pushes `key`'s name. A key of at most one byte with no references (a synthesized `CodingKeys`
    /// enum) is found by its type and value, without asking for its `stringValue`: a `CodingKey`'s
    /// name is a function of its value.
    @inline(__always)
    func push<K: CodingKey>(_ key: K) {
        let size = MemoryLayout<K>.size
        guard size <= 1, _isPOD(K.self) else {
            push(key.stringValue)
            return
        }
        let type = UInt64(UInt(bitPattern: ObjectIdentifier(K.self)))
        let value: UInt64 = size == 0 ? 0 : withUnsafeBytes(of: key) { UInt64($0[0]) }
        let index = find(type, value, 0)
        if entries[index].generation == generation {
            lua_pushvalue(L, base + entries[index].slot)
            return
        }
        let slot = push(key.stringValue)
        guard slot != 0, entries[Self.entryCount].count < Self.keyCapacity else { return }
        entries[Self.entryCount].count += 1
        entries[find(type, value, 0)] = Entry(low: type, high: value, count: 0, slot: slot, generation: generation)
    }

    /// Pushes `name` as a Lua string; returns the slot it is kept in, 0 if it is not kept.
    @inline(__always) @discardableResult
    func push(_ name: String) -> Int32 {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count > 0, bytes.count <= 16 else {
                pushUnkept(bytes)
                return 0
            }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            let count = Int32(bytes.count)
            let index = find(words.0, words.1, count)
            if entries[index].generation == generation {
                lua_pushvalue(L, base + entries[index].slot)
                return entries[index].slot
            }
            pushUnkept(bytes)
            let kept = entries[Self.entryCount].slot
            guard kept < Self.capacity else { return 0 }
            lua_copy(L, -1, base + kept + 1)
            entries[index] = Entry(low: words.0, high: words.1, count: count, slot: kept + 1, generation: generation)
            entries[Self.entryCount].slot = kept + 1
            return kept + 1
        }
    }

    private func pushUnkept(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// Pushes `key`'s name through `strings` when there are some (inside a root value), else as it is.
    @inline(__always)
    static func push<K: CodingKey>(_ key: K, through strings: LuaKeyStrings?, _ L: OpaquePointer) {
        if let strings { strings.push(key) } else { LuaStack(L).push(key.stringValue) }
    }
}
