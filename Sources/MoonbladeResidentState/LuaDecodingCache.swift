import CLua
import CResidentState
@_spi(ResidentState) import MoonbladeLua

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
///
/// It also works the other way: the tables of cached arrays and dictionaries are found by the
/// collection's storage (``CollectionStorage``), so that pushing a state Swift code changed reuses the
/// table of every collection it left untouched (``LuaResidentState/replace(with:version:encoder:)``).
final class LuaDecodingCache {
    struct Key: Hashable {
        let id: Int64
        let type: ObjectIdentifier
    }

    /// The draft machinery (CResidentState), which keeps `ids`, `tables` and the change records.
    private let machinery: LuaReference
    // @exclusivity(unchecked) in this file, all together: 2.9 % of a Lua counter dispatch
    // (Scripts/perf-gate, checked against unchecked).
    // The cache is used by the VM's one thread at a time, and its fields are never accessed while an
    // access to them is under way: the runtime exclusivity checks (a tenth of a small decode) guard
    // nothing here.
    @exclusivity(unchecked) private var entries: [Key: Any] = [:]
    /// Entries superseded during the last decode, and during this one.
    @exclusivity(unchecked) private var superseded: [Key: Any] = [:]
    @exclusivity(unchecked) private var supersededNow: [Key: Any] = [:]
    @exclusivity(unchecked) private var nextID: Int64 = 1
    /// The table of each cached collection by its storage, with the collection, which keeps the
    /// storage alive and shared; dropped when the table's entry leaves the cache after it was
    /// superseded (a changed collection would otherwise keep every older copy of itself alive until a
    /// sweep) or when the table has been collected.
    @exclusivity(unchecked) private var tablesByStorage: [CollectionStorage: (id: Int64, value: Any)] = [:]
    /// The storage of each cached collection, by its table's id: what to drop from `tablesByStorage`
    /// when that table's entry is superseded.
    @exclusivity(unchecked) private var storagesByID: [Int64: CollectionStorage] = [:]
    /// Which types met so far are collections of values.
    @exclusivity(unchecked) private var collectionTypes = LuaTypeMemo<any ValueCollection.Type>()
    /// Which types are ``LuaStatePatchable``: a state's few types, asked about on every decode.
    @exclusivity(unchecked) private var patchableTypes = LuaTypeMemo<any LuaStatePatchable.Type>()
    private static let sweepFloor = 256
    @exclusivity(unchecked) private var sweepThreshold = sweepFloor
    /// The stack slot of the weak id-to-table table while ``withReusableTables(on:_:)`` runs, else 0.
    private var reusableTablesSlot: Int32 = 0

    init(machinery: LuaReference) {
        self.machinery = machinery
    }

    /// Decodes the value `root` refers to, with the change records of the `apply` numbered
    /// `changeSession` (a pending version's) to patch collections from, if the machinery still has them.
    /// With `rootKeysChecked` (the version the root's draft was made of was a `T`), the root's change
    /// record vouches for its keys.
    func decode<T: Decodable>(
        _ type: T.Type, root: LuaStateVersion, changeSession: Int64?, rootKeysChecked: Bool = false, on stack: LuaStack,
        options: LuaDecoder
    ) throws -> T {
        // The C API at once, as below: calls into MoonbladeLua are not inlined here.
        let L = stack.state
        let base = lua_gettop(L)
        defer {
            lua_settop(L, base)
            if !superseded.isEmpty || !supersededNow.isEmpty {
                // The entries superseded a decode ago and not met since leave the cache, and so do
                // their collections' tables from the reuse map (until then a failed decode's state,
                // still current, may need them).
                for key in superseded.keys { forgetReuse(ofTable: key.id) }
                superseded = supersededNow
                supersededNow = [:]
            }
        }
        do { try stack.reserve(7) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the Lua stack cannot grow", underlyingError: error))
        }
        // The machinery, then the tables it keeps for decoding, then the root.
        machinery.push(onto: stack)
        let hasChanges = moonblade_state_push_decoding_tables(L, base + 1, changeSession ?? 0) != 0
        defer {
            // Records read are dropped once the decode is done (they would keep replaced tables alive).
            if hasChanges {
                lua_settop(L, base + 1)  // the machinery, with the slots reserved above it
                moonblade_state_drop_changes(L, base + 1)
            }
        }
        root.pushRoot(onto: stack)
        let rootChanges = lua_type(L, base + 5) == LUA_TTABLE ? base + 5 : 0
        let value = try stack.decode(
            T.self, at: base + 6, options: options, cache: self, ids: base + 2, tables: base + 3,
            changes: lua_type(L, base + 4) == LUA_TTABLE ? base + 4 : 0, rootChanges: rootChanges,
            pendingRoot: hasChanges ? base + 6 : 0, vouchingRecord: rootKeysChecked && rootChanges != 0 ? rootChanges : nil)
        sweepIfGrown(stack, tables: base + 3)
        return value
    }

    /// Stops offering the table `id` for reuse: its collection is an older copy of one the state
    /// holds now.
    private func forgetReuse(ofTable id: Int64) {
        if let storage = storagesByID.removeValue(forKey: id), tablesByStorage[storage]?.id == id {
            tablesByStorage[storage] = nil
        }
    }

    /// The number of cached values (for tests of the cache's bound).
    var count: Int { entries.count + superseded.count }

    /// The number of collections whose tables are offered for reuse (for tests of their bound).
    var reusableCollectionCount: Int { tablesByStorage.count }

    private func sweepIfGrown(_ stack: LuaStack, tables: Int32) {
        guard entries.count + tablesByStorage.count > sweepThreshold else { return }
        let L = stack.state
        func isAlive(_ id: Int64) -> Bool {
            defer { lua_settop(L, -2) }
            return lua_rawgeti(L, tables, id) != LUA_TNIL
        }
        entries = entries.filter { key, _ in isAlive(key.id) }
        tablesByStorage = tablesByStorage.filter { _, entry in isAlive(entry.id) }
        storagesByID = storagesByID.filter { id, _ in isAlive(id) }
        sweepThreshold = max(Self.sweepFloor, (entries.count + tablesByStorage.count) * 2)
    }

    /// The storage of `value` if it is a nonempty collection of values.
    func storage<T>(of value: T) -> CollectionStorage? {
        CollectionStorage(value, as: collectionTypes.answer(for: T.self, CollectionStorage.collectionType(of:)))
    }

    /// Runs `push`, which pushes one value, with the tables of cached collections offered for reuse
    /// through this cache (the weak id-to-table table sits below the value meanwhile, and is taken
    /// away after).
    func withReusableTables(on stack: LuaStack, _ push: (LuaDecodingCache) throws -> Void) throws {
        try stack.reserve(2)
        let L = stack.state
        let base = stack.top
        machinery.push(onto: stack)
        moonblade_state_replace_with_tables(L, base + 1)
        reusableTablesSlot = base + 1
        defer { reusableTablesSlot = 0 }
        do {
            try push(self)
        } catch {
            stack.top = base
            throw error
        }
        lua_copy(L, base + 2, base + 1)
        stack.top = base + 1
    }
}

extension LuaDecodingCache: LuaReusableTables {
    /// Pushes the table `value` was decoded from and returns true, if it is a cached collection whose
    /// table is alive; pushes nothing and returns false otherwise. Only inside ``withReusableTables(on:_:)``.
    package func pushTable<T>(for value: T, _ L: OpaquePointer) -> Bool {
        guard reusableTablesSlot != 0, let storage = storage(of: value), let entry = tablesByStorage[storage] else {
            return false
        }
        if lua_rawgeti(L, reusableTablesSlot, entry.id) == LUA_TTABLE { return true }
        lua_settop(L, -2)
        return false
    }
}

// What one decode (a ``LuaDecodingSession``) asks of the cache.
extension LuaDecodingCache {
    /// `type` as a ``LuaStatePatchable`` type, or nil when it is not one.
    func patchableType(_ type: Any.Type) -> (any LuaStatePatchable.Type)? {
        patchableTypes.answer(for: type) { $0 as? any LuaStatePatchable.Type }
    }

    /// The id of the table at `index`, or nil when it has none yet.
    func id(ofTableAt index: Int32, in session: LuaDecodingSession, _ L: OpaquePointer) -> Int64? {
        lua_pushvalue(L, index)
        defer { lua_settop(L, -2) }
        return lua_rawget(L, session.ids) == LUA_TNUMBER ? lua_tointegerx(L, -1, nil) : nil
    }

    /// The value cached for the table `id` as a `type`. A superseded entry met again is the value
    /// of a table the state still holds (the decode that superseded it failed or was discarded):
    /// it is cached again, for good.
    func value(id: Int64, type: Any.Type) -> Any? {
        let key = Key(id: id, type: ObjectIdentifier(type))
        if let value = entries[key] { return value }
        guard let value = superseded.removeValue(forKey: key) ?? supersededNow.removeValue(forKey: key)
        else { return nil }
        entries[key] = value
        return value
    }

    /// Whether a value is cached for the table `id` as a `type` (superseded or not), without
    /// caching it again as ``value(id:type:)`` does.
    func holdsValue(id: Int64, type: Any.Type) -> Bool {
        let key = Key(id: id, type: ObjectIdentifier(type))
        return entries[key] != nil || superseded[key] != nil || supersededNow[key] != nil
    }

    /// Moves the entry of the table `id` out of the cache, to be kept for one more decode.
    func supersede(id: Int64, type: Any.Type) {
        let key = Key(id: id, type: ObjectIdentifier(type))
        if let value = entries.removeValue(forKey: key) ?? superseded.removeValue(forKey: key) {
            supersededNow[key] = value
        }
    }

    /// Caches `value` for the table at `index`, giving the table an id if it has none.
    func store<T>(_ value: T, id existing: Int64?, tableAt index: Int32, in session: LuaDecodingSession, _ L: OpaquePointer) {
        let id: Int64
        if let existing {
            id = existing
        } else {
            id = nextID
            nextID += 1
            lua_pushvalue(L, index)
            lua_pushinteger(L, id)
            lua_rawset(L, session.ids)
            lua_pushvalue(L, index)
            lua_rawseti(L, session.tables, id)
        }
        entries[Key(id: id, type: ObjectIdentifier(T.self))] = value
        if let storage = storage(of: value) {
            tablesByStorage[storage] = (id, value)
            storagesByID[id] = storage
        }
    }

    /// Pushes the change record of the table at `index` (`{ older table, key, key, … }`) and returns
    /// true, or pushes nothing and returns false when it has none.
    func pushChangeRecord(ofTableAt index: Int32, in session: LuaDecodingSession, _ L: OpaquePointer) -> Bool {
        if index == session.pendingRoot && session.rootChanges != 0 {
            lua_pushvalue(L, session.rootChanges)
            return true
        }
        guard session.changes != 0 else { return false }
        lua_pushvalue(L, index)
        if lua_rawget(L, session.changes) == LUA_TTABLE { return true }
        lua_settop(L, -2)
        return false
    }
}
