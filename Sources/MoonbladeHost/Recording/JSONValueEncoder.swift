import MoonbladeLua
import MoonbladeResidentState

/// Encodes `Encodable` values straight into ``JSONValue``s, with no JSON text on the way: the same
/// value `JSONEncoder` would write, with integers and floats kept apart. One encoder serves a
/// recorder's one-off values (`JSONValue(encoding:)`) and a journal's successive states.
///
/// Successive states reuse the previous state's JSON for the collections the new state still shares
/// with it. A Lua updater that changed one field, or a Swift one that did not touch a list, hands the
/// store a state whose untouched arrays, dictionaries and sets share their storage with the previous
/// state's (copy-on-write): their JSON is taken from the previous encoding without encoding them again,
/// and the patch's diff sees the same storage and skips them at once. So a patch costs what changed,
/// not the size of the state. The previous state's collections are kept, which keeps their storage from
/// being reused for other contents (a mutation copies them instead). What counts as the same storage,
/// and what is always encoded again (collections of objects, empty ones), is `CollectionStorage`'s.
package final class JSONValueEncoder {
    /// The last state encoded, as a tree of nodes that remember their collections' storage.
    private var previous: Node?
    /// The last state type met and how to encode it.
    private var root: (type: ObjectIdentifier, encoding: any RootEncoding)?

    package init() {}

    /// `state` as JSON (an existential is opened: `T` is the state's own type); an error when it is
    /// not `Encodable`. The encoder remembers it only when encoding succeeds.
    package func encode<T>(_ state: T) throws -> JSONValue {
        let encoding = try rootEncoding(of: state)
        let root = try withUnsafePointer(to: state) { try encoding.node(at: UnsafeRawPointer($0), previous: previous) }
        previous = root
        return root.json
    }

    /// How to encode a `T`, found once per state type: the conformance check costs more than the
    /// rest of a small state's encoding.
    private func rootEncoding<T>(of state: T) throws -> any RootEncoding {
        if let root, root.type == ObjectIdentifier(T.self) { return root.encoding }
        guard let encodable = T.self as? any Encodable.Type else {
            throw EncodingError.invalidValue(state, .init(codingPath: [], debugDescription: "\(T.self) is not Encodable"))
        }
        let encoding = Self.rootEncoding(for: encodable)
        root = (ObjectIdentifier(T.self), encoding)
        return encoding
    }

    private static func rootEncoding<Value: Encodable>(for type: Value.Type) -> any RootEncoding {
        TypedRootEncoding<Value>()
    }

    /// Forgets the previous state: the next one is encoded whole.
    package func reset() {
        previous = nil
    }

    /// The node for `value`: the previous one when `value` is a collection sharing its storage,
    /// else a new one, encoded against `previous` (the node at the same place in the last state).
    ///
    /// The coding path is built only for a value that encodes itself (or fails): not for each scalar.
    fileprivate static func node<Value: Encodable>(
        for value: Value, previous: Node?, codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> Node {
        if let scalar = try scalar(value, codingPath: codingPath) { return Node(json: scalar) }
        let storage = CollectionStorage(value)
        if let storage, let previous, previous.storage?.storage == storage { return previous }
        let node = Node()
        node.storage = storage.map { ($0, value) }
        try value.encode(to: NodeEncoder(node: node, previous: previous, codingPath: codingPath()))
        return node
    }

    /// The integer types other than `Int`: their default encoding calls back into the generic one.
    private static let otherIntegers: [Any.Type] = [
        Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
    ]

    /// `value`'s JSON when it is a scalar JSON has a form for (or a `JSONValue`); nil for anything
    /// that encodes itself into containers. Types compare by metatype: no dynamic cast per field.
    private static func scalar<Value>(_ value: Value, codingPath: () -> [any CodingKey]) throws -> JSONValue? {
        // Each `as!` is guarded by the metatype test before it: it cannot fail.
        if Value.self == Int.self { return .integer(Int64((value as! Int))) }
        if Value.self == String.self { return .string((value as! String)) }
        if Value.self == Bool.self { return .bool((value as! Bool)) }
        if Value.self == Double.self { return .double((value as! Double)) }
        if Value.self == Float.self { return .double(Double((value as! Float))) }
        if Value.self == JSONValue.self { return (value as! JSONValue) }
        guard Self.otherIntegers.contains(where: { $0 == Value.self }), let integer = value as? any BinaryInteger else {
            return nil
        }
        guard let exact = Int64(exactly: integer) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath(), debugDescription: "\(integer) does not fit in a 64-bit integer"))
        }
        return .integer(exact)
    }
}

/// Encodes a state of one type, given where it is.
private protocol RootEncoding {
    func node(at state: UnsafeRawPointer, previous: Node?) throws -> Node
}

private struct TypedRootEncoding<Value: Encodable>: RootEncoding {
    func node(at state: UnsafeRawPointer, previous: Node?) throws -> Node {
        try JSONValueEncoder.node(for: state.assumingMemoryBound(to: Value.self).pointee, previous: previous, codingPath: [])
    }
}

/// One value of the state being encoded: a scalar, or an object or array whose members are nodes.
private final class Node {
    var members: [String: Node]?
    var elements: [Node]?
    /// The collection this node encodes, kept to tell whether the next state still shares it.
    var storage: (storage: CollectionStorage, value: Any)?
    private var built: JSONValue?

    init(json: JSONValue? = nil) {
        built = json
    }

    /// The node's JSON, built once: a node reused for the next state gives the same storage back.
    var json: JSONValue {
        if let built { return built }
        let value: JSONValue =
            if let members { .object(members.mapValues { $0.json }) } else if let elements { .array(elements.map { $0.json }) } else { .null }
        built = value
        return value
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let previous: Node?
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(Members<Key>(node: node, previous: previous?.members, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return Elements(node: node, previous: previous?.elements, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(node: node, previous: previous, codingPath: codingPath)
    }
}

/// An object's members; the scalar overloads default to the generic `encode`.
private struct Members<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let previous: [String: Node]?
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { node.members![key.stringValue] = Node(json: .null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.members![key.stringValue] = try JSONValueEncoder.node(
            for: value, previous: previous?[key.stringValue], codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        superEncoder(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        superEncoder(forKey: key).unkeyedContainer()
    }

    /// The parent's part under `"super"`, as `JSONEncoder` writes it, whether or not `Key` has such a case.
    mutating func superEncoder() -> any Encoder { encoder(under: LuaCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(under: key) }

    private func encoder(under key: some CodingKey) -> any Encoder {
        let child = Node()
        node.members![key.stringValue] = child
        return NodeEncoder(node: child, previous: previous?[key.stringValue], codingPath: codingPath + [key])
    }
}

/// An array's elements; the scalar overloads default to the generic `encode`.
private struct Elements: UnkeyedEncodingContainer {
    let node: Node
    let previous: [Node]?
    var codingPath: [any CodingKey]
    var count: Int { node.elements!.count }

    private var previousElement: Node? { previous.flatMap { count < $0.count ? $0[count] : nil } }
    private var elementPath: [any CodingKey] { codingPath + [ElementKey(intValue: count)] }

    mutating func encodeNil() { node.elements!.append(Node(json: .null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.elements!.append(try JSONValueEncoder.node(for: value, previous: previousElement, codingPath: elementPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        superEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        superEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node()
        let encoder = NodeEncoder(node: child, previous: previousElement, codingPath: elementPath)
        node.elements!.append(child)
        return encoder
    }
}

/// A value that encodes itself as one value: the node takes that value's encoding.
private struct Single: SingleValueEncodingContainer {
    let node: Node
    let previous: Node?
    var codingPath: [any CodingKey]

    mutating func encodeNil() { node.adopt(Node(json: .null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.adopt(try JSONValueEncoder.node(for: value, previous: previous, codingPath: codingPath))
    }
}

extension Node {
    /// Takes `other`'s contents: what a single-value container encoded.
    fileprivate func adopt(_ other: Node) {
        members = other.members
        elements = other.elements
        storage = other.storage ?? storage
        built = other.built
    }
}

/// The coding key of an array element.
private struct ElementKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
