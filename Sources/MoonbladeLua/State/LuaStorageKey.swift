/// A collection value's identity, for pushing a state again with the tables of the collections Swift
/// code left untouched: the value's type and its one word, the reference to its storage.
///
/// Two arrays (or dictionaries) of one type with the same storage hold the same elements, as long as
/// that storage stays alive and shared: ``LuaDecodingCache`` keeps the value it decoded from a table,
/// so a change Swift code makes to its copy in the state copies the storage first, and the changed
/// collection gets a new key. Elements are assumed to be values, like the state's: a collection of
/// class instances has no key (its objects may change in place), and a class held deeper inside a
/// collection's elements that changes in place is not seen.
struct LuaStorageKey: Hashable {
    let type: ObjectIdentifier
    let storage: UInt

    /// The key of `value`, or nil when it is not an array or dictionary of values.
    init?<T>(_ value: T, isSharedCollection: Bool) {
        guard isSharedCollection, MemoryLayout<T>.size == MemoryLayout<UInt>.size else { return nil }
        type = ObjectIdentifier(T.self)
        storage = unsafeBitCast(value, to: UInt.self)
    }
}

/// A collection whose value is one reference to copy-on-write storage: the kinds ``LuaStorageKey`` keys.
protocol LuaSharedCollection {
    /// Whether its elements are values (a collection of objects is never reused: they may have changed).
    static var holdsValues: Bool { get }
}

extension Array: LuaSharedCollection {
    static var holdsValues: Bool { !(Element.self is AnyClass) }
}

extension Dictionary: LuaSharedCollection {
    static var holdsValues: Bool { !(Key.self is AnyClass) && !(Value.self is AnyClass) }
}
