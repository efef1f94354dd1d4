import CLua
import CResidentState
import MoonbladeLua

/// The store's state kept in one VM between dispatches, as immutable Lua tables stamped with a version,
/// with Immer-style drafts for Lua updaters and a decoder that reads only what changed.
///
/// The life of a dispatch:
///
/// 1. ``apply(_:on:pushArguments:)`` runs the Lua updater on a draft of the current version and
///    turns the draft (or the table the updater returned) into a ``LuaPendingState``, in one guest
///    call: the tables on the paths that were written are new, every other subtree is the very table
///    of the current version (structural sharing).
/// 3. `decode(_:of:decoder:)` reads it into Swift, reusing the values decoded
///    earlier for unchanged subtrees and patching changed arrays and dictionaries at their changed keys.
/// 4. ``commit(_:version:)`` makes it current. Any failure on the way (a raise, a limit, a decode
///    error) leaves the current version untouched: drop the pending state and nothing happened.
///
/// Side effects and observers read a version through ``pushReadOnlyView(of:onto:)``, O(1) and
/// without copying. When Swift code changes the state, ``replace(with:version:encoder:)`` pushes it whole.
///
/// Drafts behave as plain tables for indexing, `#`, `pairs`, `ipairs` and the `table` library;
/// `rawget`, `rawset` and `next` see an empty proxy. A draft kept past its updater is revoked: using it raises.
///
/// The host reaches it through its package API; what is public is what the benchmarks of the
/// resident state alone need (Benchmarks/Workloads).
///
/// Not thread-safe: use it under the VM's one-thread rule, like ``LuaVM`` itself. Decode every
/// version with the same ``LuaDecoder`` settings: cached values do not record the settings they were
/// decoded with.
public final class LuaResidentState {
    /// The chunk name of the machinery's Lua (it copies long sequences), where no error of a plugin's
    /// belongs: a limit striking there is placed at the plugin line below it.
    package static let chunkName = String(cString: moonblade_state_chunk_name())

    private let vm: LuaVM
    private let applyFunction: LuaReference
    private let abandonFunction: LuaReference
    private let viewFunction: LuaReference
    private let cache: LuaDecodingCache

    /// The current version; nil until the first ``replace(with:version:encoder:)``.
    public var current: LuaStateVersion? { currentVersion }
    // The VM's thread alone.
    private var currentVersion: LuaStateVersion?
    /// A version nobody holds any more, whose object and registry slot the next pending state takes
    /// instead of allocating its own (~250 instructions of a Lua counter dispatch, `Scripts/profile
    /// dispatch lua`).
    private var spare: LuaStateVersion?

    /// Sets up the draft machinery (C, in `CResidentState`) in `vm`, once per resident state.
    public init(vm: LuaVM) throws(LuaError) {
        self.vm = vm
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        try stack.reserve(4)
        moonblade_pushcfunction(stack.state, moonblade_open_state_machinery)
        stack.pushTableKindMarker(.array)
        stack.pushTableKindMarker(.object)
        try stack.callAsHost(arguments: 2, results: 1)
        func field(_ name: String) -> LuaReference {
            stack.rawGet(table: -1, field: name)
            return stack.popReference()
        }
        applyFunction = field("apply")
        abandonFunction = field("abandon")
        viewFunction = field("view")
        cache = LuaDecodingCache(machinery: field("machinery"))
    }

    // MARK: Versions

    /// Pushes `value` as the new current version (when Swift code changed the state).
    ///
    /// Every nonempty array or dictionary of values in `value` that still has the storage of one
    /// decoded from a resident table (Swift code left it untouched: a change would have copied it) is
    /// that table, not encoded again; so a Swift updater that changed one field costs the fields around it, not the state.
    /// Host work: the VM's limits do not apply. On an encoding error the current version stays.
    @discardableResult
    public func replace<T: Encodable>(with value: T, version: UInt64, encoder: LuaEncoder = LuaEncoder()) throws
        -> LuaStateVersion
    {
        let replaced = try self.version(of: value, stamped: version, encoder: encoder)
        currentVersion = replaced
        return replaced
    }

    /// Pushes `value` as a version of its own, without making it current: a state Swift code made
    /// that Lua must see (an observer's old state, say). Reuses tables as ``replace(with:version:encoder:)`` does.
    package func version<T: Encodable>(of value: T, stamped version: UInt64, encoder: LuaEncoder = LuaEncoder()) throws
        -> LuaStateVersion
    {
        try cache.withReusableTables(on: vm.stack) { try encoder.push(value, onto: vm.stack, reusing: $0) }
        let pushed = LuaStateVersion(popping: vm.stack, stamp: version)
        pushed.rootType = ObjectIdentifier(T.self)
        return pushed
    }

    /// Marks the root table of `pending` as `kind` (``LuaTableKind``), for a host that reads an empty
    /// root as a kind other than its contents say (an updater's plain `{}` emptying a state that is an
    /// object): views of the version then show it as that kind too.
    package func markRoot(of pending: LuaPendingState, as kind: LuaTableKind) throws(LuaError) {
        let stack = vm.stack
        try stack.reserve(3)
        pending.next.pushRoot(onto: stack)
        stack.pushTableKindMarker(kind)
        lua_setmetatable(stack.state, -2)
        stack.pop()
    }

    /// Makes `pending` the current version, stamped `version`.
    @discardableResult
    public func commit(_ pending: LuaPendingState, version: UInt64) -> LuaStateVersion {
        var committed = pending.next
        if !committed.stampOnce(version) {  // committed before: a version of its own, on the same tables
            pending.next.pushRoot(onto: vm.stack)
            committed = LuaStateVersion(popping: vm.stack, stamp: version)
            committed.rootType = pending.next.rootType
        }
        currentVersion = committed
        return committed
    }

    /// Takes back `version` from a holder that lets it go (sets it to nil): when nothing else holds it,
    /// it is kept, without its root, for the next pending state.
    package func recycle(_ version: inout LuaStateVersion?) {
        guard isKnownUniquelyReferenced(&version), let retired = version else {
            version = nil
            return
        }
        version = nil
        retired.retire()
        spare = retired
    }

    /// Pushes a read-only view of the current version (see ``pushReadOnlyView(of:onto:)``).
    package func pushReadOnlyView(onto stack: LuaStack) throws(LuaError) {
        try pushReadOnlyView(of: requireCurrent(), onto: stack)
    }

    /// Pushes a read-only view of `version`, in O(1): a proxy that reads the resident tables, hands
    /// out nested tables as views too, and raises `state is read-only here (field "todos")` on a write.
    /// A non-table state is pushed as it is.
    package func pushReadOnlyView(of version: LuaStateVersion, onto stack: LuaStack) throws(LuaError) {
        try stack.reserve(3)
        version.pushRoot(onto: stack)
        try stack.call(arguments: 1, results: 1, function: viewFunction)
    }

    // MARK: Drafts

    /// Runs the Lua function `updater` on a draft of the current version and finishes the draft, in
    /// one guest call. `pushArguments` pushes what follows the draft (the payload) and returns how
    /// many values it pushed.
    ///
    /// On error (the updater's, a limit's, a cycle in the new state) the draft is revoked, as are
    /// drafts the plugin kept, and the current version is untouched. An updater of a table state
    /// that returns something other than a table or nil throws ``LuaStateReturnError``; a new state
    /// that can be no version (it contains itself, or is nested too deep) throws ``LuaNewStateError``.
    public func apply(
        _ updater: LuaReference, on stack: LuaStack, pushArguments: (LuaStack) throws -> Int32
    ) throws -> LuaPendingState {
        let current = try requireCurrent()
        let base = stack.top
        try stack.reserve(4)
        applyFunction.push(onto: stack)
        current.pushRoot(onto: stack)
        updater.push(onto: stack)
        do {
            let count = try pushArguments(stack)
            try stack.call(arguments: 2 + count, results: 3)
        } catch {
            stack.top = base
            // A limit that stopped the finishing is still the limit's error.
            if abandon(on: stack), let error = error as? LuaError, error.kind == .runtime {
                throw LuaNewStateError(error: error)
            }
            throw error
        }
        if let returned = stack.string(at: -1) {
            stack.top = base
            throw LuaStateReturnError(returned: returned)
        }
        let isUnchanged = lua_toboolean(stack.state, -1) != 0
        let changeSession = stack.integer(at: -2)
        stack.pop(2)
        let next: LuaStateVersion
        if let spare {
            self.spare = nil
            spare.reuse(popping: stack)
            next = spare
        } else {
            next = LuaStateVersion(popping: stack, stamp: nil)
        }
        return LuaPendingState(next: next, changeSession: changeSession, baseRootType: current.rootType, isUnchanged: isUnchanged)
    }

    // MARK: Decoding

    /// Decodes `pending` as a `T`, decoding only what changed: values of subtrees it shares with
    /// versions decoded before are reused, and changed arrays and dictionaries whose older table was
    /// decoded are patched at their changed keys (``LuaStatePatchable``).
    ///
    /// Errors are the `DecodingError`s of ``LuaDecoder``, with their full coding path.
    public func decode<T: Decodable>(_ type: T.Type, of pending: LuaPendingState, decoder: LuaDecoder = LuaDecoder())
        throws -> T
    {
        let value = try cache.decode(
            T.self, root: pending.next, changeSession: pending.changeSession,
            rootKeysChecked: pending.baseRootType == ObjectIdentifier(T.self), on: vm.stack, options: decoder)
        pending.next.rootType = ObjectIdentifier(T.self)
        return value
    }

    /// Decodes `version` as a `T`, reusing the values cached for its tables.
    public func decode<T: Decodable>(_ type: T.Type, of version: LuaStateVersion, decoder: LuaDecoder = LuaDecoder())
        throws -> T
    {
        let value = try cache.decode(T.self, root: version, changeSession: nil, on: vm.stack, options: decoder)
        version.rootType = ObjectIdentifier(T.self)
        return value
    }

    /// How many decoded values the decoding cache holds (entries of collected tables are swept once
    /// the cache has doubled).
    package var cachedValueCount: Int { cache.count }

    /// How many collections' tables the decoding cache offers for reuse after a Swift updater.
    package var reusableCollectionCount: Int { cache.reusableCollectionCount }

    /// Ends a failed ``apply(_:on:pushArguments:)``: its drafts become read-only. Returns whether it
    /// failed finishing the state the updater left, rather than in the updater.
    private func abandon(on stack: LuaStack) -> Bool {
        guard (try? stack.call(arguments: 0, results: 1, function: abandonFunction)) != nil else { return false }
        defer { stack.pop() }
        return lua_toboolean(stack.state, -1) != 0
    }

    private func requireCurrent() throws(LuaError) -> LuaStateVersion {
        guard let current = currentVersion else { throw LuaError(.runtime, message: "the resident state has no version yet") }
        return current
    }
}
