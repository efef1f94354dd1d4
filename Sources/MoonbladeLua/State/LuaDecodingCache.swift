import CLua
import LuaGuest

/// Decoded Swift values of resident tables, keyed by table identity and Swift type, so that decoding
/// a new version reuses what an unchanged subtree decoded to last time.
///
/// Identity is not the table's address (a collected table's address is reused) but an id the Lua
/// side keeps in a weak-keyed table (`ids`): when a table is collected its id goes with it, so a new
/// table never meets a stale entry. A weak-valued `tables` (id to table) tells which ids are dead;
/// their entries are dropped once the cache has doubled since the last sweep (amortized O(1)).
///
/// A changed table supersedes the entry of the table it came from (the same state one version older):
/// that entry is kept for one more decode only, for a draft made again from the same version after
/// its first result was discarded, so the cache holds about two versions' worth of values, not one
/// per dispatch.
///
/// What is cached: every table decoded outside arrays and dictionaries (the state's struct skeleton),
/// and every table decoded as a ``LuaStatePatchable`` type. Items of a collection that are not
/// patchable (a struct per array element) are not: the collection's own entry holds them.
final class LuaDecodingCache {
    struct Key: Hashable {
        let id: Int64
        let type: ObjectIdentifier
    }

    /// The draft machinery (State/drafts.c), which keeps `ids`, `tables` and the change records.
    private let machinery: LuaReference
    // The cache is used by the VM's one thread at a time, and its fields are never accessed while an
    // access to them is under way: the runtime exclusivity checks (a tenth of a small decode) guard
    // nothing here.
    @exclusivity(unchecked) private var entries: [Key: Any] = [:]
    /// Entries superseded during the last decode, and during this one.
    @exclusivity(unchecked) private var superseded: [Key: Any] = [:]
    @exclusivity(unchecked) private var supersededNow: [Key: Any] = [:]
    @exclusivity(unchecked) private var nextID: Int64 = 1
    /// The decoder of every decode, kept with its buffers (one thread uses the cache at a time), and
    /// whether a decode is using it: a decode started inside another (from an `init(from:)`, say) gets
    /// a decoder of its own.
    @exclusivity(unchecked) private var decoder: LuaValueDecoder?
    @exclusivity(unchecked) private var decoderInUse = false
    /// Which types are ``LuaStatePatchable``: a state's few types, asked about on every decode.
    @exclusivity(unchecked) private var patchableTypes = LuaTypeMemo<any LuaStatePatchable.Type>()
    private static let sweepFloor = 256
    @exclusivity(unchecked) private var sweepThreshold = sweepFloor

    init(machinery: LuaReference) {
        self.machinery = machinery
    }

    /// Decodes the value `root` refers to, with the change records of the `apply` numbered
    /// `changeSession` (a pending version's) to patch collections from, if the machinery still has them.
    func decode<T: Decodable>(
        _ type: T.Type, root: LuaStateVersion, changeSession: Int64?, on stack: LuaStack, options: LuaDecoder
    ) throws -> T {
        let base = stack.top
        defer {
            stack.top = base
            if !superseded.isEmpty || !supersededNow.isEmpty {
                superseded = supersededNow
                supersededNow = [:]
            }
        }
        do { try stack.reserve(7) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the Lua stack cannot grow", underlyingError: error))
        }
        // The machinery, then the tables it keeps for decoding, then the root.
        machinery.push(onto: stack)
        let hasChanges = moonblade_state_push_decoding_tables(stack.state, base + 1, changeSession ?? 0) != 0
        defer {
            // Records read are dropped once the decode is done (they would keep replaced tables alive).
            if hasChanges {
                stack.top = base + 1  // the machinery, with the slots reserved above it
                moonblade_state_drop_changes(stack.state, base + 1)
            }
        }
        root.pushRoot(onto: stack)
        let decoder = takeDecoder(on: stack.state, options: options)
        defer {
            if decoder === self.decoder {
                decoder.releaseAfterDecode()
                decoderInUse = false
            }
        }
        decoder.cache = Session(
            cache: self, ids: base + 2, tables: base + 3,
            changes: stack.type(at: base + 4) == .table ? base + 4 : 0,
            rootChanges: stack.type(at: base + 5) == .table ? base + 5 : 0,
            pendingRoot: hasChanges ? base + 6 : 0)
        try decoder.reserve()
        let value = try decoder.decodeValue(T.self, at: base + 6, key: nil)
        sweepIfGrown(stack, tables: base + 3)
        return value
    }

    /// The kept decoder, readied for a decode; a fresh one while the kept one is busy (a decode started
    /// inside another) or was made for another Lua state.
    private func takeDecoder(on L: OpaquePointer, options: LuaDecoder) -> LuaValueDecoder {
        guard !decoderInUse else { return LuaValueDecoder(state: L, options: options) }
        decoderInUse = true
        if let kept = decoder, kept.L == L {
            kept.prepareForReuse(options: options)
            return kept
        }
        let made = LuaValueDecoder(state: L, options: options)
        decoder = made
        return made
    }

    /// The number of cached values (for tests of the cache's bound).
    var count: Int { entries.count + superseded.count }

    /// Forgets every value (the state was pushed whole: none of its tables were decoded yet).
    func removeAll() {
        entries = [:]
        superseded = [:]
        sweepThreshold = Self.sweepFloor
    }

    private func sweepIfGrown(_ stack: LuaStack, tables: Int32) {
        guard entries.count > sweepThreshold else { return }
        let L = stack.state
        entries = entries.filter { key, _ in
            defer { lua_settop(L, -2) }
            return lua_rawgeti(L, tables, key.id) != LUA_TNIL
        }
        sweepThreshold = max(Self.sweepFloor, entries.count * 2)
    }

    /// The stack slots of one decode's cache tables, carried by the decoder.
    struct Session {
        // Unchecked: a session lives in its cache's own decoder, which the cache outlives.
        unowned(unsafe) let cache: LuaDecodingCache
        let ids: Int32
        let tables: Int32
        /// The change records of changed tables but the root, and the root's own; 0 for none.
        let changes: Int32
        let rootChanges: Int32
        /// The root of a pending version, or 0. A changed root is a new table every time (and an
        /// unchanged one is not decoded at all), so a cache entry for it would never be met again;
        /// only a patchable one is kept, for the next version to patch.
        let pendingRoot: Int32

        /// `type` as a ``LuaStatePatchable`` type, or nil when it is not one.
        func patchableType(_ type: Any.Type) -> (any LuaStatePatchable.Type)? {
            cache.patchableTypes.answer(for: type) { $0 as? any LuaStatePatchable.Type }
        }

        /// The id of the table at `index`, or nil when it has none yet.
        func id(ofTableAt index: Int32, _ L: OpaquePointer) -> Int64? {
            lua_pushvalue(L, index)
            defer { lua_settop(L, -2) }
            return lua_rawget(L, ids) == LUA_TNUMBER ? lua_tointegerx(L, -1, nil) : nil
        }

        func value(id: Int64, type: Any.Type) -> Any? {
            let key = Key(id: id, type: ObjectIdentifier(type))
            return cache.entries[key] ?? cache.superseded[key] ?? cache.supersededNow[key]
        }

        /// Moves the entry of the table `id` out of the cache, to be kept for one more decode.
        func supersede(id: Int64, type: Any.Type) {
            let key = Key(id: id, type: ObjectIdentifier(type))
            if let value = cache.entries.removeValue(forKey: key) ?? cache.superseded.removeValue(forKey: key) {
                cache.supersededNow[key] = value
            }
        }

        /// Caches `value` for the table at `index`, giving the table an id if it has none.
        func store(_ value: Any, type: Any.Type, id existing: Int64?, tableAt index: Int32, _ L: OpaquePointer) {
            let id: Int64
            if let existing {
                id = existing
            } else {
                id = cache.nextID
                cache.nextID += 1
                lua_pushvalue(L, index)
                lua_pushinteger(L, id)
                lua_rawset(L, ids)
                lua_pushvalue(L, index)
                lua_rawseti(L, tables, id)
            }
            cache.entries[Key(id: id, type: ObjectIdentifier(type))] = value
        }

        /// Pushes the change record of the table at `index` (`{ older table, key, key, … }`) and returns
        /// true, or pushes nothing and returns false when it has none.
        func pushChangeRecord(ofTableAt index: Int32, _ L: OpaquePointer) -> Bool {
            if index == pendingRoot && rootChanges != 0 {
                lua_pushvalue(L, rootChanges)
                return true
            }
            guard changes != 0 else { return false }
            lua_pushvalue(L, index)
            if lua_rawget(L, changes) == LUA_TTABLE { return true }
            lua_settop(L, -2)
            return false
        }
    }
}
