import CLua
import LuaGuest

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Decoder` behind ``LuaDecoder``: reads straight from the Lua stack.
///
/// One instance serves a whole `decode`: nested values reuse it, saving and restoring the fields that
/// describe "the value being decoded now". Each VM keeps one root decoder for its decodes
/// (``LuaKeptCoder``), so a small decode allocates nothing of its own. Values a container pulls onto
/// the stack stay there until the value that owns the container is done; then the stack is cut back.
package final class LuaValueDecoder: Decoder, LuaReusableCoder {
    // @exclusivity(unchecked) in this file, all together: 19.6 % of decoding 1,000 items, 5.2 % of a Lua counter dispatch
    // (Scripts/perf-gate, checked against unchecked).
    @exclusivity(unchecked) private(set) var L: OpaquePointer
    @exclusivity(unchecked) var options: LuaDecoder
    // One decoder is used by one thread at a time (the VM's), and its fields are only touched in
    // place, never across a call that touches them again: the runtime exclusivity checks (~4 % of a
    // decode) guard nothing here.

    /// Keeps child decoders (nested containers, super decoders) alive; containers hold them unowned.
    @exclusivity(unchecked) private var children: [LuaValueDecoder] = []
    unowned(unsafe) private var root: LuaValueDecoder?

    /// Keys from the root to the value being decoded: those a child decoder starts from, then the
    /// steps taken since (materialized only when a key is asked for).
    private let basePath: [any CodingKey]
    @exclusivity(unchecked) private var steps: [LuaPathStep] = []
    @exclusivity(unchecked) private var depth = 0
    /// The stack index of the value being decoded, and the Swift type it is being decoded as.
    @exclusivity(unchecked) private(set) var index: Int32 = 0
    @exclusivity(unchecked) private var valueType: Any.Type = Never.self
    /// Identities of the tables being decoded, root first, to report cycles instead of recursing.
    @exclusivity(unchecked) private var tables: [UnsafeRawPointer] = []
    /// Set when decoding a resident state version: reuse and record decoded values.
    @exclusivity(unchecked) var cache: LuaDecodingSession?
    /// How many arrays or dictionaries enclose the value being decoded, and how many enclosing items
    /// are decoded without the cache (the cache says what it caches).
    @exclusivity(unchecked) var collectionDepth = 0
    @exclusivity(unchecked) var cacheSuspension = 0
    /// A changed table of a resident version and the stack index of its change record, which lists
    /// every key where it differs from an older table already decoded as the same type: its keys are
    /// checked at those keys only (``checkKeyedTable(_:at:)``). Table 0: none.
    @exclusivity(unchecked) var vouchedKeys: (table: Int32, record: Int32) = (0, 0)
    /// The field names' Lua strings, the VM's.
    let keyStrings: LuaKeyStrings
    /// The keyed containers this root decoder has handed out (children make theirs).
    @exclusivity(unchecked) var keptContainers = LuaKeptContainers()
    /// Which types met so far are ``LuaSequenceDecodable`` (see ``sequenceDecodable(_:)``).
    @exclusivity(unchecked) var sequenceTypes = LuaTypeMemo<any LuaSequenceDecodable.Type>()

    init(state: OpaquePointer, options: LuaDecoder) {
        L = state
        self.options = options
        basePath = []
        keyStrings = LuaRuntime.of(state).keyStrings
    }

    func prepareForReuse(state: OpaquePointer) {
        L = state
        // A decode that returned left no path or tables behind; one that threw may have.
        if !children.isEmpty { children.removeAll(keepingCapacity: true) }
        if !steps.isEmpty { steps.removeAll(keepingCapacity: true) }
        if !tables.isEmpty { tables.removeAll(keepingCapacity: true) }
        depth = 0
        index = 0
        valueType = Never.self
        cache = nil
        collectionDepth = 0
        cacheSuspension = 0
        vouchedKeys = (0, 0)
    }

    func releaseAfterUse() {
        if !children.isEmpty { children.removeAll(keepingCapacity: true) }
        cache = nil
    }

    private init(parent: LuaValueDecoder, path: [any CodingKey], index: Int32) {
        L = parent.L
        options = parent.options
        basePath = path
        self.index = index
        depth = parent.depth
        tables = parent.tables
        cache = parent.cache
        collectionDepth = parent.collectionDepth
        cacheSuspension = parent.cacheSuspension
        keyStrings = parent.keyStrings
        let root = parent.root ?? parent
        self.root = root
        root.children.append(self)
    }

    /// A decoder for the value at `index` (already on the stack), reached by `path`.
    func child(path: [any CodingKey], index: Int32) throws -> LuaValueDecoder {
        try reserve()
        return LuaValueDecoder(parent: self, path: path, index: index)
    }

    /// Keys from the root to the value being decoded.
    var path: [any CodingKey] { steps.codingPath(after: basePath) }
    var basePathCount: Int { basePath.count }
    var stepCount: Int { steps.count }
    package var codingPath: [any CodingKey] { path }
    package var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    package var stack: LuaStack { LuaStack(L) }

    @inline(__always)
    package func reserve() throws {
        do { try stack.reserve(LuaCoding.slotMargin) } catch { throw cannotGrow(error) }
    }

    // MARK: Errors

    // The errors are made by these functions and handed back boxed (`any Error`, a `DecodingError`
    // inside): a `DecodingError` value in the function that throws it would take a stack slot sized at
    // run time (the type is resilient) on every call, thrown or not, in every function the readers are
    // inlined into.

    private func cannotGrow(_ error: any Error) -> any Error {
        DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "the Lua stack cannot grow", underlyingError: error))
    }

    @inline(__always)
    private func pathTo(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return path }
        return path + [key]
    }

    /// The value at `index` is not what `type` reads: `valueNotFound` for nil/null, else `typeMismatch`.
    func mismatch(_ type: Any.Type, expected: String, at index: Int32, key: (any CodingKey)?) -> any Error {
        let context = DecodingError.Context(
            codingPath: pathTo(key), debugDescription: "expected \(expected), found \(LuaCoding.describeValue(L, index))")
        return LuaCoding.isNilOrNull(L, index)
            ? DecodingError.valueNotFound(type, context) : DecodingError.typeMismatch(type, context)
    }

    func corrupted(key: (any CodingKey)?, _ message: String) -> any Error {
        DecodingError.dataCorrupted(.init(codingPath: pathTo(key), debugDescription: message))
    }

    func keyNotFound(_ key: any CodingKey, integer: Bool) -> any Error {
        let name = integer && key.intValue != nil ? "[\(key.intValue!)]" : LuaCodingPath.quoted(key.stringValue)
        return DecodingError.keyNotFound(key, .init(codingPath: path, debugDescription: "required key \(name) is missing"))
    }

    // MARK: Scalars

    /// Reads the scalar at `index`, whose Lua type is `luaType` (by default, asked for here). The key
    /// is an autoclosure: it is only made into a coding path when the read fails, so a read costs no
    /// key existential (or generic metadata) on success.
    @inline(__always)
    func decodeScalar<T: LuaScalar>(
        _ type: T.Type, at index: Int32, luaType: Int32? = nil, key: @autoclosure () -> (any CodingKey)?
    ) throws -> T {
        guard let value = T.read(L, index, type: luaType ?? lua_type(L, index)) else {
            throw T.failure(at: index, in: self, key: key())
        }
        return value
    }

    // MARK: Values

    /// Reads the value at the absolute `index` as a `T`; `step` is where it sits in its container (nil
    /// for the root or a single-value container).
    @inline(__always)
    package func decodeValue<T: Decodable>(_ type: T.Type, at index: Int32, step: LuaPathStep?) throws -> T {
        if T.self == String.self {
            return try decodeScalar(String.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Int.self {
            return try decodeScalar(Int.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Double.self {
            return try decodeScalar(Double.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Bool.self {
            return try decodeScalar(Bool.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Int64.self {
            return try decodeScalar(Int64.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Int32.self {
            return try decodeScalar(Int32.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Int16.self {
            return try decodeScalar(Int16.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Int8.self {
            return try decodeScalar(Int8.self, at: index, key: step?.codingKey) as! T
        } else if T.self == UInt8.self {
            return try decodeScalar(UInt8.self, at: index, key: step?.codingKey) as! T
        } else if T.self == UInt16.self {
            return try decodeScalar(UInt16.self, at: index, key: step?.codingKey) as! T
        } else if T.self == UInt32.self {
            return try decodeScalar(UInt32.self, at: index, key: step?.codingKey) as! T
        } else if T.self == UInt64.self {
            return try decodeScalar(UInt64.self, at: index, key: step?.codingKey) as! T
        } else if T.self == UInt.self {
            return try decodeScalar(UInt.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Float.self {
            return try decodeScalar(Float.self, at: index, key: step?.codingKey) as! T
        } else if T.self == Date.self {
            return try decodeDate(at: index, step: step) as! T
        } else if T.self == Data.self {
            return try decodeData(at: index, step: step) as! T
        }
        if let cache, cacheSuspension == 0 {
            return try cache.cache.decodeCached(T.self, at: index, step: step, session: cache, decoder: self)
        }
        if let sequence = sequenceDecodable(T.self) {
            return try decodeNested(T.self, at: index, step: step) { try sequence.luaDecodeSequence(with: $0) as! T }
        }
        return try decodeNested(T.self, at: index, step: step) { try T(from: $0) }
    }

    /// Runs `body` with this decoder pointed at the value at `index`, then restores it and the stack.
    package func decodeNested<T>(
        _ type: T.Type, at index: Int32, step: LuaPathStep?, _ body: (LuaValueDecoder) throws -> T
    ) throws -> T {
        guard depth < LuaCoding.maximumDepth else {
            throw corrupted(key: step?.codingKey, "nested more than \(LuaCoding.maximumDepth) levels deep")
        }
        try reserve()
        // A table met again on the way down is a cycle; a single-value container handing its own
        // value on (step nil, same index) is not.
        var tracksTable = false
        if lua_type(L, index) == LUA_TTABLE && (step != nil || index != self.index) {
            let identity = lua_topointer(L, index)!
            if tables.contains(identity) {
                throw corrupted(key: step?.codingKey, "found a table that contains itself (a cycle)")
            }
            tables.append(identity)
            tracksTable = true
        }
        let top = lua_gettop(L)
        if depth == 0 { keyStrings.beginRoot() }
        let saved = (self.index, valueType)
        // A view or draft of the resident state reads as the table it shows (popped below). A resident
        // version being decoded through the cache has no proxies left: no look-up for its tables.
        self.index = cache == nil ? LuaStack(L).resolveStateProxy(at: index) : index
        valueType = T.self
        // Tested and unwrapped in place: binding it would copy the step (and the root's `nil`) once more.
        if step != nil { steps.append(step.unsafelyUnwrapped) }
        depth += 1
        defer {
            (self.index, valueType) = saved
            depth -= 1
            if step != nil { steps.removeLast() }
            if tracksTable { tables.removeLast() }
            lua_settop(L, top)
        }
        return try body(self)
    }

    private func decodeDate(at index: Int32, step: LuaPathStep?) throws -> Date {
        let key = step?.codingKey
        switch options.dateDecodingStrategy {
        case .deferredToDate:
            return try decodeNested(Date.self, at: index, step: step) { try Date(from: $0) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decodeScalar(Double.self, at: index, key: key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decodeScalar(Double.self, at: index, key: key) / 1000)
        case .iso8601:
            let string = try decodeScalar(String.self, at: index, key: key)
            guard let date = try? Date(string, strategy: Date.ISO8601FormatStyle()) else {
                throw corrupted(key: key, "expected an ISO 8601 date, found \(LuaCoding.describeValue(L, index))")
            }
            return date
        case .custom(let decode):
            return try decodeNested(Date.self, at: index, step: step) { try decode($0) }
        }
    }

    private func decodeData(at index: Int32, step: LuaPathStep?) throws -> Data {
        let key = step?.codingKey
        switch options.dataDecodingStrategy {
        case .deferredToData:
            return try decodeNested(Data.self, at: index, step: step) { try Data(from: $0) }
        case .base64:
            guard let data = stack.withStringBytes(at: index, { Data(base64Encoded: Data($0)) }) else {
                throw mismatch(Data.self, expected: "base64-encoded Data", at: index, key: key)
            }
            guard let data else {
                throw corrupted(key: key, "expected base64-encoded Data, found \(LuaCoding.describeValue(L, index))")
            }
            return data
        case .luaString:
            guard let data = stack.withStringBytes(at: index, { Data($0) }) else {
                throw mismatch(Data.self, expected: "Data (a string of bytes)", at: index, key: key)
            }
            return data
        case .custom(let decode):
            return try decodeNested(Data.self, at: index, step: step) { try decode($0) }
        }
    }

    // MARK: Containers

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let table = index
        let integerKeys = try checkKeyedTable(Key.self, at: table)
        // A root decoder's are kept (see LuaKeptContainers).
        return keptContainers.container(Key.self, table: table, integerKeys: integerKeys, keeping: root == nil) {
            KeyedDecodingContainer(LuaKeyedDecodingContainer<Key>(decoder: self, table: table, integerKeys: integerKeys))
        }
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: index)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        LuaSingleValueDecodingContainer(decoder: self, index: index)
    }

    /// A keyed container over the table at `index`, after checking its keys (``checkKeyedTable(_:at:)``).
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, at index: Int32) throws -> LuaKeyedDecodingContainer<Key> {
        LuaKeyedDecodingContainer(decoder: self, table: index, integerKeys: try checkKeyedTable(Key.self, at: index))
    }

    /// Checks that the value at `index` is a table whose keys are all strings, for a struct or
    /// `[String: V]`, or all integers, for `[Int: V]` (in C), and returns whether they are integers.
    /// A struct's table whose keys a change record vouches for (``vouchedKeys``) is checked at the
    /// keys it lists.
    private func checkKeyedTable<Key: CodingKey>(_ type: Key.Type, at index: Int32) throws -> Bool {
        guard lua_type(L, index) == LUA_TTABLE else {
            throw mismatch(valueType, expected: "a table", at: index, key: nil)
        }
        let isDictionary = ObjectIdentifier(Key.self) == Self.dictionaryKeyType
        let integerKeys = isDictionary && (valueType as? any LuaTableShape.Type)?.luaHasIntegerKeys == true
        var nonASCII: Int32 = 0
        let strayKey =
            if !isDictionary && index == vouchedKeys.table {
                moonblade_check_listed_keys(L, index, vouchedKeys.record)
            } else if isDictionary && !integerKeys {
                moonblade_check_record_keys(L, index, 0, &nonASCII)
            } else {
                moonblade_check_record_keys(L, index, integerKeys ? 1 : 0, nil)
            }
        if strayKey != 0 {
            let found = LuaCoding.describeKey(L, -1)
            lua_settop(L, -2)
            throw corrupted(
                key: nil, "expected a table with \(integerKeys ? "integer" : "string") keys, found key \(found)")
        }
        if nonASCII != 0 { try checkKeysAreDistinctText(at: index) }
        return integerKeys
    }

    /// Refuses a table two of whose string keys are one key to Swift (`"\u{e9}"` and `"e\u{301}"`,
    /// `"K"` and the Kelvin sign: Swift strings compare by canonical equivalence), which a Swift
    /// dictionary would merge, keeping one value without a word.
    private func checkKeysAreDistinctText(at index: Int32) throws {
        var seen: [String: [UInt8]] = [:]
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            lua_settop(L, -2)
            let bytes = stack.withStringBytes(at: -1) { Array($0) } ?? []
            // A key that is not UTF-8 is refused as such when the dictionary reads it.
            guard let key = String(validating: bytes, as: UTF8.self) else { continue }
            if let other = seen.updateValue(bytes, forKey: key), other != bytes {
                lua_settop(L, -2)
                throw corrupted(key: nil, LuaCodingPath.sameTextKeys(inEitherOrder: other, bytes) + ", which a Swift dictionary holds as one")
            }
        }
    }

    /// An unkeyed container over the table at `index`, after checking (in C) that its keys are exactly `1…n`.
    func unkeyedContainer(at index: Int32) throws -> LuaUnkeyedDecodingContainer {
        guard lua_type(L, index) == LUA_TTABLE else {
            throw mismatch(valueType, expected: "a sequence", at: index, key: nil)
        }
        var hole: Int64 = 0
        let count = moonblade_check_sequence(L, index, &hole)
        if count == Int64(moonblade_sequence_bad_key.rawValue) {
            let found = LuaCoding.describeKey(L, -1)
            lua_settop(L, -2)
            throw DecodingError.dataCorrupted(
                .init(codingPath: path, debugDescription: "expected a sequence, found key \(found)", underlyingError: LuaSequenceStrayKey(key: found))
            )
        }
        if count == Int64(moonblade_sequence_hole.rawValue) {
            throw corrupted(key: nil, "expected a sequence, found a hole at [\(hole)]")
        }
        guard count <= Int64(Int32.max) else {
            throw corrupted(key: nil, "expected a sequence, found one of \(count) items (too long)")
        }
        return LuaUnkeyedDecodingContainer(decoder: self, table: index, count: Int32(count))
    }

    /// The key type the standard library's dictionaries decode with (`_DictionaryCodingKey`), found
    /// once by asking a dictionary to decode from a probe.
    static let dictionaryKeyType: ObjectIdentifier? = {
        let probe = KeyTypeProbe()
        _ = try? [String: Int](from: probe)
        return probe.found.type.map(ObjectIdentifier.init)
    }()
}

/// A decoder that records the key type of the first keyed container asked of it, then fails.
private struct KeyTypeProbe: Decoder {
    final class Found { var type: Any.Type? }
    let found = Found()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        found.type = Key.self
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "probe"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "probe"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "probe"))
    }
}

extension LuaValueDecoder: LuaTableKindDecoding {
    package var tableKind: LuaTableKind? { LuaStack(L).tableKind(at: index) }
}

extension LuaDecoder: LuaCoderSettings {
    /// Whether these are the default settings, which hold no references (a kept decoder's between uses).
    var isDefault: Bool {
        guard case .deferredToDate = dateDecodingStrategy, case .base64 = dataDecodingStrategy else { return false }
        return userInfo.isEmpty
    }
}
