import MoonbladeLua

/// The storage of a nonempty array, set or dictionary of values: its type and the one word that
/// refers to its copy-on-write storage. The resident state reuses the table of a collection Swift
/// code left untouched by it (``LuaDecodingCache``); the journal reuses the JSON of one.
///
/// Two collections of one type with the same storage hold the same elements, as long as that storage
/// stays alive and shared: whoever compares keeps the value it compares against, so a change Swift
/// code makes to its own copy copies the storage first, and the changed collection gets another
/// storage. Elements are assumed to be values, like the state's: a collection of class instances
/// (optional or not) has no storage here (its objects may change in place), and a class held deeper
/// inside a collection's elements that changes in place is not seen.
///
/// An empty collection has none either: every empty one of a type shares one storage, so it would
/// match any other empty one (with the table kind marker, ``LuaTableKind``, of whichever was met
/// first), and an empty one costs nothing to make again.
package struct CollectionStorage: Hashable {
    let type: ObjectIdentifier
    let word: UInt

    /// The storage of `value`, or nil when it is not a nonempty collection of values.
    package init?<T>(_ value: T) {
        self.init(value, as: Self.collectionType(of: T.self))
    }

    /// The storage of `value`, whose type `collectionType(of:)` answered with `collection` (for callers
    /// that remember that answer: it is a conformance look-up).
    init?<T>(_ value: T, as collection: (any ValueCollection.Type)?) {
        guard let collection, MemoryLayout<T>.size == MemoryLayout<UInt>.size,
            !withUnsafePointer(to: value, { collection.isEmpty(at: UnsafeRawPointer($0)) })
        else { return nil }
        type = ObjectIdentifier(T.self)
        // The storage reference as a word: no API names a `Set`'s or a `Dictionary`'s storage, and the
        // guard above checked the size and that the type is a collection of one reference.
        word = unsafeBitCast(value, to: UInt.self)
    }

    /// `type` as a collection of values, or nil.
    static func collectionType(of type: Any.Type) -> (any ValueCollection.Type)? {
        (type as? any ValueCollection.Type).flatMap { $0.holdsValues ? $0 : nil }
    }
}

/// A collection whose value is one reference to copy-on-write storage.
protocol ValueCollection {
    /// Whether its elements are values: a collection of objects never counts as unchanged.
    static var holdsValues: Bool { get }
    /// Whether the collection at `pointer` (a `Self`) is empty.
    static func isEmpty(at pointer: UnsafeRawPointer) -> Bool
}

extension ValueCollection where Self: Collection {
    static func isEmpty(at pointer: UnsafeRawPointer) -> Bool {
        pointer.assumingMemoryBound(to: Self.self).pointee.isEmpty
    }
}

extension Array: ValueCollection {
    static var holdsValues: Bool { !isObject(Element.self) }
}

extension ContiguousArray: ValueCollection {
    static var holdsValues: Bool { !isObject(Element.self) }
}

extension Set: ValueCollection {
    static var holdsValues: Bool { !isObject(Element.self) }
}

extension Dictionary: ValueCollection {
    static var holdsValues: Bool { !isObject(Key.self) && !isObject(Value.self) }
}

/// Whether `type` is a class or an optional one: its values may change in place.
private func isObject(_ type: Any.Type) -> Bool {
    type is AnyClass || type is any OptionalObject.Type
}

/// An optional class instance (see ``isObject(_:)``).
private protocol OptionalObject {}

extension Optional: OptionalObject where Wrapped: AnyObject {}
