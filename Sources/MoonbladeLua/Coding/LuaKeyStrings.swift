import CLua

/// The Lua strings of the field names a VM's coders meet, kept in the VM's registry, so that pushing a
/// field's key is one `lua_rawgeti` instead of a `lua_pushlstring`, which hashes the bytes and searches
/// Lua's string table every time (a third of what hand-written C-API code spends on a struct).
///
/// Each VM has one, made with its ``LuaRuntime``: a push or decode sets nothing up for it, so a small
/// value on the dispatch path finds its names from its first field on. Two kinds of names, each in a
/// small open-addressed table on the Swift side:
///
/// - The names of synthesized `CodingKeys` values (keys of at most one byte with no references), found
///   by their type and value before their `stringValue` is asked for. A program has a fixed set of
///   them, so the first ``lastingCapacity`` names are kept for the VM's life, each in a registry slot
///   of its own.
/// - Other names (a dictionary's keys, a custom key type's), found by their bytes: data rather than a
///   type's shape, so they are kept for one root value only, in ``rootCapacity`` registry slots that
///   the next root value reuses. Entries of earlier roots are told apart by a generation number
///   instead of being cleared.
///
/// Names longer than 16 bytes or empty, and names past either capacity, are pushed as they are.
/// Nothing is allocated in Lua after a name's first use (no garbage). A value type over storage its
/// runtime frees (``deallocate()``), copied into the coders; used under the VM's one-thread rule.
struct LuaKeyStrings {
    /// How many names are kept for the VM's life, and how many coding-key values are remembered.
    static let lastingCapacity: Int32 = 192
    /// How many other names one root value keeps.
    static let rootCapacity: Int32 = 16
    /// Table sizes (powers of two) larger than what they hold, so a search always meets a free entry.
    private static let lastingEntryCount = 512
    private static let rootEntryCount = 64

    /// A kept name (its bytes zero-padded to 16, and its length) or a coding-key value (its type, its
    /// one byte, and length 0), with the registry slot of its string (0: a free entry). A root name
    /// counts only while its generation is the current one.
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count: Int32 = 0
        var slot: Int32 = 0
        var generation: UInt32 = 0
    }

    private struct Counts {
        var lastingNames: Int32 = 0
        var keyValues: Int32 = 0
        var rootNames: Int32 = 0
        var generation: UInt32 = 1
    }

    private let counts: UnsafeMutablePointer<Counts>
    private let lasting: UnsafeMutablePointer<Entry>
    private let root: UnsafeMutablePointer<Entry>
    /// The registry slots root names go to, taken at their first use (0 until then).
    private let rootSlots: UnsafeMutablePointer<Int32>

    /// Empty tables; the registry slots are taken as names come.
    init() {
        counts = .allocate(capacity: 1)
        counts.initialize(to: Counts())
        lasting = .allocate(capacity: Self.lastingEntryCount)
        lasting.initialize(repeating: Entry(), count: Self.lastingEntryCount)
        root = .allocate(capacity: Self.rootEntryCount)
        root.initialize(repeating: Entry(), count: Self.rootEntryCount)
        rootSlots = .allocate(capacity: Int(Self.rootCapacity))
        rootSlots.initialize(repeating: 0, count: Int(Self.rootCapacity))
    }

    /// Frees the Swift side (the runtime's, once its VM is gone).
    func deallocate() {
        counts.deallocate()
        lasting.deallocate()
        root.deallocate()
        rootSlots.deallocate()
    }

    /// Starts a root value: the other names kept for the last one no longer count.
    @inline(__always)
    func beginRoot() {
        counts.pointee.generation &+= 1
        counts.pointee.rootNames = 0
        if counts.pointee.generation == 0 {  // wrapped: no entry may look current
            root.update(repeating: Entry(), count: Self.rootEntryCount)
            counts.pointee.generation = 1
        }
    }

    /// Pushes `key`'s name. A key of at most one byte with no references (a synthesized `CodingKeys`
    /// enum) is found by its type and value, without asking for its `stringValue`: a `CodingKey`'s
    /// name is a function of its value.
    @inline(__always)
    func push<K: CodingKey>(_ key: K, _ L: OpaquePointer) {
        let size = MemoryLayout<K>.size
        guard size <= 1, _isPOD(K.self) else {
            pushRootName(key.stringValue, L)
            return
        }
        let type = UInt64(UInt(bitPattern: ObjectIdentifier(K.self)))
        // A cast rather than `withUnsafeBytes(of:)`, which this unspecialized code calls with a closure:
        // 3.4 % of encoding 1,000 items, 3.3 % of decoding them (Scripts/perf-gate encode-1000, decode-1000).
        let value: UInt64 = size == 0 ? 0 : UInt64(unsafeBitCast(key, to: UInt8.self))
        let slot = lasting[Self.find(type, value, 0, in: lasting, Self.lastingEntryCount, current: nil)].slot
        if slot != 0 {
            lua_rawgeti(L, moonblade_registryindex, lua_Integer(slot))
        } else {
            keepKeyValue(key, type: type, value: value, L)
        }
    }

    /// Pushes the name of a key value met for the first time, and remembers it if there is room.
    @inline(never)
    private func keepKeyValue<K: CodingKey>(_ key: K, type: UInt64, value: UInt64, _ L: OpaquePointer) {
        let slot = pushLastingName(key.stringValue, L)
        guard slot != 0, counts.pointee.keyValues < Self.lastingCapacity else { return }
        counts.pointee.keyValues += 1
        // Found again: keeping the name may have taken the entry found before.
        lasting[Self.find(type, value, 0, in: lasting, Self.lastingEntryCount, current: nil)] =
            Entry(low: type, high: value, count: 0, slot: slot)
    }

    /// Pushes `name`, kept for the VM's life if there is room; returns its slot, 0 if it is not kept.
    private func pushLastingName(_ name: String, _ L: OpaquePointer) -> Int32 {
        var name = name
        return name.withUTF8 { bytes in
            guard let (low, high, count) = Self.words(of: bytes) else {
                Self.pushUnkept(bytes, L)
                return 0
            }
            let index = Self.find(low, high, count, in: lasting, Self.lastingEntryCount, current: nil)
            if lasting[index].slot != 0 {
                lua_rawgeti(L, moonblade_registryindex, lua_Integer(lasting[index].slot))
                return lasting[index].slot
            }
            Self.pushUnkept(bytes, L)
            guard counts.pointee.lastingNames < Self.lastingCapacity else { return 0 }
            counts.pointee.lastingNames += 1
            let slot = Self.keep(L, in: LuaRuntime.of(L).takeRegistrySlot())
            lasting[index] = Entry(low: low, high: high, count: count, slot: slot)
            return slot
        }
    }

    /// Pushes `name`, kept for the current root value if there is room.
    private func pushRootName(_ name: String, _ L: OpaquePointer) {
        var name = name
        name.withUTF8 { bytes in
            guard let (low, high, count) = Self.words(of: bytes) else { return Self.pushUnkept(bytes, L) }
            let generation = counts.pointee.generation
            let index = Self.find(low, high, count, in: root, Self.rootEntryCount, current: generation)
            if root[index].generation == generation {
                lua_rawgeti(L, moonblade_registryindex, lua_Integer(root[index].slot))
                return
            }
            Self.pushUnkept(bytes, L)
            let kept = counts.pointee.rootNames
            guard kept < Self.rootCapacity else { return }
            counts.pointee.rootNames = kept + 1
            if rootSlots[Int(kept)] == 0 { rootSlots[Int(kept)] = LuaRuntime.of(L).takeRegistrySlot() }
            let slot = Self.keep(L, in: rootSlots[Int(kept)])
            root[index] = Entry(low: low, high: high, count: count, slot: slot, generation: generation)
        }
    }

    /// Stores a copy of the string on top of the stack in registry slot `slot`, and returns the slot.
    private static func keep(_ L: OpaquePointer, in slot: Int32) -> Int32 {
        lua_pushvalue(L, -1)
        lua_rawseti(L, moonblade_registryindex, lua_Integer(slot))
        return slot
    }

    /// The bytes of a name of 1 to 16 bytes as two zero-padded words and its length; nil for others.
    @inline(__always)
    private static func words(of bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, Int32)? {
        guard bytes.count > 0, bytes.count <= 16 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
        return (words.0, words.1, Int32(bytes.count))
    }

    /// The index of the entry for `(low, high, count)` in `table`, or of the free entry where it would
    /// go. An entry is taken when it has a slot and, for root names (`current` given), is current.
    @inline(__always)
    private static func find(
        _ low: UInt64, _ high: UInt64, _ count: Int32, in table: UnsafeMutablePointer<Entry>, _ size: Int,
        current: UInt32?
    ) -> Int {
        var hash = (low ^ UInt64(UInt32(bitPattern: count))) &* 0x9E37_79B9_7F4A_7C15 ^ high &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 29
        var index = Int(truncatingIfNeeded: hash) & (size - 1)
        while table[index].slot != 0 && (current == nil || table[index].generation == current) {
            let entry = table[index]
            if entry.low == low && entry.high == high && entry.count == count { return index }
            index = (index + 1) & (size - 1)
        }
        return index
    }

    private static func pushUnkept(_ bytes: UnsafeBufferPointer<UInt8>, _ L: OpaquePointer) {
        _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
    }
}
