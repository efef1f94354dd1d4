/// A collection value's identity, for pushing a state again with the tables of the collections Swift
/// code left untouched: the value's type and its one word, the reference to its storage.
///
/// Two arrays (or dictionaries) of one type with the same storage hold the same elements, as long as
/// that storage stays alive and shared: ``LuaDecodingCache`` keeps the value it decoded from a table,
/// so a change Swift code makes to its copy in the state copies the storage first, and the changed
/// collection gets a new key. Elements are assumed to be values, like the state's: a collection of
/// class instances (optional or not) has no key (its objects may change in place), and a class held
/// deeper inside a collection's elements that changes in place is not seen.
///
/// An empty collection has no key either: every empty one of a type shares one storage, so its key
/// would find the table of any other field that is empty (with that table's kind marker,
/// ``LuaTableKind``), and an empty table costs nothing to make.
struct LuaStorageKey: Hashable {
    let type: ObjectIdentifier
    let storage: UInt

    /// The key of `value`, or nil when it is not a nonempty array or dictionary of values
    /// (`collection` is its type when it is an array or dictionary of values).
    init?<T>(_ value: T, collection: (any LuaSharedCollection.Type)?) {
        guard let collection, MemoryLayout<T>.size == MemoryLayout<UInt>.size,
            !withUnsafePointer(to: value, { collection.luaIsEmpty(at: UnsafeRawPointer($0)) })
        else { return nil }
        type = ObjectIdentifier(T.self)
        storage = unsafeBitCast(value, to: UInt.self)
    }
}

/// A collection whose value is one reference to copy-on-write storage: the kinds ``LuaStorageKey`` keys.
protocol LuaSharedCollection {
    /// Whether its elements are values (a collection of objects is never reused: they may have changed).
    static var holdsValues: Bool { get }
    /// Whether the collection at `pointer` (a `Self`) is empty.
    static func luaIsEmpty(at pointer: UnsafeRawPointer) -> Bool
}

extension Array: LuaSharedCollection {
    static var holdsValues: Bool { !isObject(Element.self) }

    static func luaIsEmpty(at pointer: UnsafeRawPointer) -> Bool {
        pointer.assumingMemoryBound(to: Self.self).pointee.isEmpty
    }
}

extension Dictionary: LuaSharedCollection {
    static var holdsValues: Bool { !isObject(Key.self) && !isObject(Value.self) }

    static func luaIsEmpty(at pointer: UnsafeRawPointer) -> Bool {
        pointer.assumingMemoryBound(to: Self.self).pointee.isEmpty
    }
}

/// Whether `type` is a class or an optional one: its values may change in place.
private func isObject(_ type: Any.Type) -> Bool {
    type is AnyClass || type is any OptionalObject.Type
}

/// An optional class instance (see ``isObject(_:)``).
private protocol OptionalObject {}

extension Optional: OptionalObject where Wrapped: AnyObject {}
