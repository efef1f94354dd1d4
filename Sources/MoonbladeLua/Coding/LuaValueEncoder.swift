import CLua

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` behind ``LuaEncoder``: writes straight onto the Lua stack.
///
/// One instance serves a whole `push`: nested values reuse it, saving and restoring the few fields
/// that describe "the value being encoded now". Each VM keeps one root encoder for its pushes
/// (``LuaKeptCoder``), so a small push allocates nothing of its own and
/// what it learnt about types lasts. Its stack discipline: encoding one value pushes exactly one
/// value at `slot`; tables for nested containers may sit above it until the value is done, then the
/// stack is cut back to `slot`.
final class LuaValueEncoder: Encoder, LuaReusableCoder {
    // @exclusivity(unchecked) in this file, all together: 14.4 % of encoding 1,000 items
    // (Scripts/perf-gate, checked against unchecked).
    // One encoder is used by one thread at a time (the VM's), and its fields are only touched in
    // place: the runtime exclusivity checks guard nothing here.
    @exclusivity(unchecked) private(set) var L: OpaquePointer
    @exclusivity(unchecked) var options: LuaEncoder

    /// Keeps child encoders (nested containers, super encoders) alive; containers hold them unowned.
    @exclusivity(unchecked) private var children: [LuaValueEncoder] = []
    unowned(unsafe) private var root: LuaValueEncoder?

    /// Keys from the root to the value being encoded: those a child encoder starts from, then the
    /// steps taken since (materialized only when a key is asked for).
    private let basePath: [any CodingKey]
    @exclusivity(unchecked) private var steps: [LuaPathStep] = []
    @exclusivity(unchecked) private var depth = 0

    /// The stack slot the value being encoded goes to.
    @exclusivity(unchecked) private var slot: Int32 = 0
    /// The value being encoded (valid while its `encode(to:)` runs) and its type, asked for a
    /// presizing hint only when it opens a container that may be a collection's.
    @exclusivity(unchecked) private var valuePointer: UnsafeRawPointer?
    @exclusivity(unchecked) private var valueType: Any.Type = Never.self
    /// For a super encoder: the table and key its value is stored under.
    private let superTarget: SuperTarget?

    /// Field counts seen per `CodingKey` type, so later tables of the same type are presized. A state
    /// has few struct types, so a short list beats hashing.
    @exclusivity(unchecked) private var fieldCounts: [(keyType: ObjectIdentifier, count: Int32)] = []
    @exclusivity(unchecked) private var uncountedKeyType: ObjectIdentifier?
    /// The field names' Lua strings, the VM's.
    let keyStrings: LuaKeyStrings
    /// The keyed containers this root encoder has handed out (children make theirs).
    @exclusivity(unchecked) var keptContainers = LuaKeptContainers()
    /// Which types met so far are ``LuaSequenceEncodable`` (see ``sequenceEncodable(_:)``).
    @exclusivity(unchecked) var sequenceTypes = LuaTypeMemo<any LuaSequenceEncodable.Type>()
    /// When pushing a resident version: the tables of collections decoded before, pushed instead of
    /// encoding a collection that still has the same storage.
    @exclusivity(unchecked) var reusableTables: (any LuaReusableTables)?

    init(state: OpaquePointer, options: LuaEncoder) {
        L = state
        self.options = options
        basePath = []
        superTarget = nil
        keyStrings = LuaRuntime.of(state).keyStrings
    }

    func prepareForReuse(state: OpaquePointer) {
        L = state
        // A push that returned left no path behind; one that threw may have.
        if !steps.isEmpty { steps.removeAll(keepingCapacity: true) }
        depth = 0
        slot = 0
        valuePointer = nil
        valueType = Never.self
        uncountedKeyType = nil
        if stackFailure != nil { stackFailure = nil }
        reusableTables = nil
    }

    func releaseAfterUse() {
        if !children.isEmpty { children.removeAll(keepingCapacity: true) }
        reusableTables = nil
    }

    /// A child encoder for a nested container or a super encoder, with its own materialized path.
    private init(
        parent: LuaValueEncoder, path: [any CodingKey], slot: Int32, superTarget: SuperTarget?
    ) {
        L = parent.L
        options = parent.options
        basePath = path
        self.depth = parent.depth
        self.slot = slot
        self.superTarget = superTarget
        keyStrings = parent.keyStrings
        reusableTables = parent.reusableTables
        let root = parent.root ?? parent
        self.root = root
        root.children.append(self)
    }

    /// Keys from the root to the value being encoded.
    var path: [any CodingKey] { steps.codingPath(after: basePath) }
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    @inline(__always)
    func reserve() throws {
        guard lua_checkstack(L, LuaCoding.slotMargin) != 0 else { throw overflow() }
    }

    // MARK: Values

    /// Pushes `value` as exactly one Lua value; `step` is where it sits in its container (nil for the
    /// root or a single-value container), added to the path only when the value is not a scalar.
    @inline(__always)
    func pushValue<T: Encodable>(_ value: T, step: LuaPathStep?) throws {
        if T.self == String.self {
            LuaStack(L).push((value as! String))
        } else if T.self == Int.self {
            lua_pushinteger(L, lua_Integer((value as! Int)))
        } else if T.self == Double.self {
            lua_pushnumber(L, (value as! Double))
        } else if T.self == Bool.self {
            lua_pushboolean(L, (value as! Bool) ? 1 : 0)
        } else if T.self == Int64.self {
            lua_pushinteger(L, (value as! Int64))
        } else if T.self == Int32.self {
            lua_pushinteger(L, lua_Integer((value as! Int32)))
        } else if T.self == Int16.self {
            lua_pushinteger(L, lua_Integer((value as! Int16)))
        } else if T.self == Int8.self {
            lua_pushinteger(L, lua_Integer((value as! Int8)))
        } else if T.self == UInt8.self {
            lua_pushinteger(L, lua_Integer((value as! UInt8)))
        } else if T.self == UInt16.self {
            lua_pushinteger(L, lua_Integer((value as! UInt16)))
        } else if T.self == UInt32.self {
            lua_pushinteger(L, lua_Integer((value as! UInt32)))
        } else if T.self == UInt64.self {
            try pushUnsigned((value as! UInt64), step: step)
        } else if T.self == UInt.self {
            try pushUnsigned(UInt64((value as! UInt)), step: step)
        } else if T.self == Float.self {
            lua_pushnumber(L, Double((value as! Float)))
        } else if T.self == Date.self {
            try pushDate((value as! Date), step: step)
        } else if T.self == Data.self {
            try pushData((value as! Data), step: step)
        } else {
            try pushNested(value, step: step)
        }
    }

    @inline(__always)
    func pushUnsigned(_ value: UInt64, step: LuaPathStep?) throws {
        guard value <= UInt64(Int64.max) else {
            throw invalid(value, step: step, "\(value) does not fit in a Lua integer (the largest is \(Int64.max))")
        }
        lua_pushinteger(L, lua_Integer(value))
    }

    /// An `EncodingError` at `key`, boxed (see ``LuaValueDecoder/mismatch(_:expected:at:key:)`` for why).
    func invalid(_ value: Any, step: LuaPathStep?, _ message: String) -> any Error {
        var codingPath = path
        if let step { codingPath.append(step.codingKey) }
        return EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: message))
    }

    /// Encodes a value through its own `encode(to:)` with this encoder pointed at a fresh slot.
    func pushNested<T: Encodable>(_ value: T, step: LuaPathStep?) throws {
        if let reusableTables, reusableTables.pushTable(for: value, L) { return }
        guard depth < LuaCoding.maximumDepth else {
            throw invalid(value, step: step, "nested more than \(LuaCoding.maximumDepth) levels deep (a cycle?)")
        }
        try reserve()
        if depth == 0 { keyStrings.beginRoot() }
        let saved = (slot, valuePointer, valueType, uncountedKeyType)
        slot = lua_gettop(L) + 1
        uncountedKeyType = nil
        // Tested and unwrapped in place: binding it would copy the step (and the root's `nil`) once more.
        if step != nil { steps.append(step.unsafelyUnwrapped) }
        depth += 1
        defer {
            (slot, valuePointer, valueType, uncountedKeyType) = saved
            depth -= 1
            if step != nil { steps.removeLast() }
        }
        do {
            try withUnsafePointer(to: value) { pointer in
                valuePointer = UnsafeRawPointer(pointer)
                valueType = T.self
                if let sequence = sequenceEncodable(T.self) {
                    try sequence.luaEncodeSequence(at: pointer, with: self)
                } else {
                    try value.encode(to: self)
                }
            }
        } catch {
            lua_settop(L, slot - 1)
            throw error
        }
        if lua_gettop(L) < slot {
            lua_createtable(L, 0, 0)  // encoded nothing: an empty table, as JSON gives `{}`
        } else {
            lua_settop(L, slot)
            if let keyType = uncountedKeyType { learnFieldCount(of: keyType) }
        }
    }

    /// The most fields a learnt count presizes: a struct's fields, not a table whose keys are made at
    /// run time, whose first size says nothing of the next (and the count lasts as long as the VM).
    private static let largestPresize: Int32 = 64

    /// Counts the fields of the first table built for a key type, to presize the next ones.
    private func learnFieldCount(of keyType: ObjectIdentifier) {
        var count: Int32 = 0
        lua_pushnil(L)
        while lua_next(L, slot) != 0 {
            count += 1
            lua_settop(L, -2)
        }
        if fieldCounts.count < 64 { fieldCounts.append((keyType, min(count, Self.largestPresize))) }
    }

    /// The presizing hint and key kind for the value being encoded, when it is a collection.
    private func collectionShape() -> (sequence: Int32, fields: Int32, integerKeys: Bool) {
        guard let valuePointer, let shape = valueType as? any LuaTableShape.Type else { return (0, 0, false) }
        let size = shape.luaTableSize(of: valuePointer)
        return (size.sequence, size.fields, shape.luaHasIntegerKeys)
    }

    private func pushDate(_ date: Date, step: LuaPathStep?) throws {
        switch options.dateEncodingStrategy {
        case .deferredToDate: try pushNested(date, step: step)
        case .secondsSince1970: lua_pushnumber(L, date.timeIntervalSince1970)
        case .millisecondsSince1970: lua_pushnumber(L, date.timeIntervalSince1970 * 1000)
        case .iso8601: LuaStack(L).push(date.formatted(Date.ISO8601FormatStyle()))
        case .custom(let encode): try pushNested(CustomEncoded { try encode(date, $0) }, step: step)
        }
    }

    private func pushData(_ data: Data, step: LuaPathStep?) throws {
        switch options.dataEncodingStrategy {
        case .deferredToData: try pushNested(data, step: step)
        case .base64: LuaStack(L).push(data.base64EncodedString())
        case .luaString:
            data.withUnsafeBytes { bytes in
                _ = lua_pushlstring(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
        case .custom(let encode): try pushNested(CustomEncoded { try encode(data, $0) }, step: step)
        }
    }

    /// Adapts a custom strategy's closure to `Encodable`.
    private struct CustomEncoded: Encodable {
        let body: (any Encoder) throws -> Void
        func encode(to encoder: any Encoder) throws { try body(encoder) }
    }

    /// Stores `value` as the item at `position` of the sequence `table` (a nil one per the
    /// nil-in-sequence strategy).
    @inline(__always)
    func storeItem<T: Encodable>(_ value: T, at position: Int, in table: Int32) throws {
        try pushValue(value, step: .position(position))
        if lua_type(L, -1) == LUA_TNIL {  // an Optional that was nil
            lua_settop(L, -2)
            try pushNilItem(position: position)
        }
        lua_rawseti(L, table, lua_Integer(position))
    }

    /// Pushes `nil` for an item of a sequence, per the nil-in-sequence strategy.
    func pushNilItem(position: Int) throws {
        switch options.nilInSequenceStrategy {
        case .reject:
            throw invalid(
                Optional<Any>.none as Any, step: .position(position),
                "a Lua sequence cannot hold nil (set nilInSequenceStrategy to .null to encode it as null)")
        case .null:
            LuaStack(L).pushNull()
        }
    }

    // MARK: Containers

    /// Makes sure the value at `slot` is a table and returns its index; a single value there is replaced.
    private func tableAtSlot(sequence: Int32, fields: Int32) -> Int32 {
        if isDead { return 0 }
        if lua_gettop(L) >= slot && lua_type(L, slot) == LUA_TTABLE { return slot }
        lua_settop(L, slot - 1)
        lua_createtable(L, sequence, fields)
        if let superTarget { store(at: superTarget.table, key: superTarget.key, integer: superTarget.integer) }
        return slot
    }

    /// Stores a copy of the value on top into `table[key]` (raw), leaving the value in place.
    private func store(at table: Int32, key: any CodingKey, integer: Bool) {
        pushKey(key, integer: integer)
        lua_pushvalue(L, -2)
        lua_rawset(L, table)
    }

    /// Pushes `key` as a Lua key. Generic so that a container's field key is read in place, not boxed
    /// into an existential for every field.
    @inline(__always)
    func pushKey<K: CodingKey>(_ key: K, integer: Bool) {
        if integer, let int = key.intValue {
            lua_pushinteger(L, lua_Integer(int))
        } else {
            keyStrings.push(key, L)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        if keyType == LuaValueDecoder.dictionaryKeyType {
            let shape = collectionShape()
            let table = tableAtSlot(sequence: shape.sequence, fields: shape.fields)
            return keyedContainer(Key.self, table: table, integerKeys: shape.integerKeys)
        }
        var fields: Int32 = 0
        if let known = fieldCounts.first(where: { $0.keyType == keyType }) {
            fields = known.count
        } else if valuePointer != nil {
            uncountedKeyType = keyType
        }
        let table = tableAtSlot(sequence: 0, fields: fields)
        return keyedContainer(Key.self, table: table, integerKeys: false)
    }

    /// A keyed container writing into `table`: a root encoder's kept one (see ``LuaKeptContainers``).
    @inline(__always)
    private func keyedContainer<Key: CodingKey>(_ type: Key.Type, table: Int32, integerKeys: Bool) -> KeyedEncodingContainer<Key> {
        keptContainers.container(Key.self, table: table, integerKeys: integerKeys, keeping: root == nil) {
            KeyedEncodingContainer(LuaKeyedEncodingContainer<Key>(encoder: self, table: table, integerKeys: integerKeys))
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sequenceContainer(count: collectionShape().sequence)
    }

    /// The unkeyed container behind ``unkeyedContainer()``, its table presized for `count` items.
    func sequenceContainer(count: Int32) -> LuaUnkeyedEncodingContainer {
        LuaUnkeyedEncodingContainer(encoder: self, table: tableAtSlot(sequence: count, fields: 0))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LuaSingleValueEncodingContainer(encoder: self)
    }

    /// Starts a single value: the value pushed next lands in the slot (a super encoder pushes it on
    /// top instead and stores it under its key).
    ///
    /// A slot that holds a value already is an error, as `JSONEncoder` traps on it: a second single
    /// value, or one after a container, whose later writes would go into whatever replaced its table.
    @inline(__always)
    func beginSingleValue() throws {
        if isDead { throw overflow() }
        if superTarget == nil && lua_gettop(L) >= slot {
            throw invalid(
                path.count, step: nil,
                "a second value encoded through one encoder (a single value after a container or another single value)")
        }
    }

    /// Ends a single value pushed at the slot (for a super encoder, stores it under its key and pops it).
    @inline(__always)
    func endSingleValue() {
        if let superTarget {
            store(at: superTarget.table, key: superTarget.key, integer: superTarget.integer)
            lua_settop(L, -2)
        }
    }

    /// A new table stored at `table[key]` (the key on top of the stack), left on the stack, with an
    /// encoder whose path leads to it. When the stack cannot grow (this is reached from methods that
    /// cannot throw), the key is popped and the child is dead: its containers throw the overflow.
    func nestedEncoder(storingInto table: Int32, path: [any CodingKey]) -> LuaValueEncoder {
        guard lua_checkstack(L, LuaCoding.slotMargin) != 0 else {
            lua_settop(L, -2)
            return deadEncoder(path: path)
        }
        lua_createtable(L, 0, 0)
        lua_pushvalue(L, -1)
        lua_rotate(L, -3, 1)  // key, table, table → table, key, table
        lua_rawset(L, table)
        return LuaValueEncoder(parent: self, path: path, slot: lua_gettop(L), superTarget: nil)
    }

    /// An encoder whose value is stored at `table[key]`; it starts out as an empty table.
    func superEncoder(storingInto table: Int32, key: any CodingKey, integer: Bool, path: [any CodingKey]) -> LuaValueEncoder {
        guard lua_checkstack(L, LuaCoding.slotMargin) != 0 else { return deadEncoder(path: path) }
        lua_createtable(L, 0, 0)
        store(at: table, key: key, integer: integer)
        return LuaValueEncoder(
            parent: self, path: path, slot: lua_gettop(L), superTarget: SuperTarget(table: table, key: key, integer: integer))
    }

    // MARK: A stack that cannot grow

    /// Set on the root when a container could not be made for lack of stack; `push` then fails with
    /// it (an `EncodingError`, kept as `any Error`: one reference to test between uses).
    @exclusivity(unchecked) private(set) var stackFailure: (any Error)?
    /// A dead encoder's containers have table 0 and throw ``overflow()`` from every method.
    @exclusivity(unchecked) private(set) var isDead = false

    private func deadEncoder(path: [any CodingKey]) -> LuaValueEncoder {
        let child = LuaValueEncoder(parent: self, path: path, slot: 0, superTarget: nil)
        child.isDead = true
        (root ?? self).stackFailure = child.overflow()
        return child
    }

    /// The error for a Lua stack that cannot grow (an `EncodingError`, boxed).
    func overflow() -> any Error {
        EncodingError.invalidValue(
            basePath.count + steps.count,
            .init(
                codingPath: path, debugDescription: "the Lua stack cannot grow",
                underlyingError: LuaError(.memory, message: "Lua stack overflow (cannot grow by \(LuaCoding.slotMargin) slots)")))
    }
}

extension LuaValueEncoder {
    /// Where a super encoder's value is stored: `table[key]`, the key an integer or a string. A
    /// reference, so that the encoders' many checks for it test a pointer instead of copying an
    /// optional tuple with an existential inside.
    final class SuperTarget {
        let table: Int32
        let key: any CodingKey
        let integer: Bool

        init(table: Int32, key: any CodingKey, integer: Bool) {
            self.table = table
            self.key = key
            self.integer = integer
        }
    }

    /// The stack index of a child encoder's table (0 when it is dead).
    var tableIndex: Int32 { isDead ? 0 : slot }
}

extension LuaValueEncoder: LuaTableKindEncoding {
    func markTable(as kind: LuaTableKind) {
        // A super encoder has stored its value away already; a dead one has none.
        guard !isDead, superTarget == nil, lua_gettop(L) >= slot, lua_type(L, slot) == LUA_TTABLE else { return }
        LuaStack(L).pushTableKindMarker(kind)
        lua_setmetatable(L, slot)
    }
}

extension LuaEncoder: LuaCoderSettings {
    /// Whether these are the default settings, which hold no references (a kept encoder's between uses).
    var isDefault: Bool {
        guard case .deferredToDate = dateEncodingStrategy, case .base64 = dataEncodingStrategy,
            case .reject = nilInSequenceStrategy
        else { return false }
        return userInfo.isEmpty
    }
}
