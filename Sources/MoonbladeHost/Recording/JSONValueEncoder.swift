import MoonbladeLua

/// Encodes an `Encodable` value straight into a ``JSONValue``, with no JSON text on the way: what a
/// recorder pays per dispatch to see a typed state as JSON.
struct JSONValueEncoder {
    func encode(_ value: some Encodable) throws -> JSONValue {
        try Node.encoding(value, codingPath: []).json
    }
}

/// A value being built: a scalar, or an object or array whose members are still being encoded.
private final class Node {
    var scalar: JSONValue = .null
    var members: [String: Node]?
    var elements: [Node]?

    var json: JSONValue {
        if let members { return .object(members.mapValues(\.json)) }
        if let elements { return .array(elements.map(\.json)) }
        return scalar
    }

    /// `value` encoded into a new node.
    static func encoding(_ value: some Encodable, codingPath: [any CodingKey]) throws -> Node {
        // The smaller integer types have no method of their own in the containers: their defaults
        // come back here, so they are caught before they would encode themselves again.
        if let integer = value as? any BinaryInteger { return try Node.integer(integer, codingPath: codingPath) }
        let node = Node()
        if let json = value as? JSONValue {
            node.scalar = json
        } else {
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
        return node
    }

    static func integer(_ value: some BinaryInteger, codingPath: [any CodingKey]) throws -> Node {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) does not fit in a 64-bit integer"))
        }
        let node = Node()
        node.scalar = .integer(integer)
        return node
    }

    static func scalar(_ value: JSONValue) -> Node {
        let node = Node()
        node.scalar = value
        return node
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    private func set(_ child: Node, _ key: some CodingKey) { node.members![key.stringValue] = child }

    mutating func encodeNil(forKey key: Key) { set(.scalar(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.scalar(.bool(value)), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.scalar(.string(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) { set(.scalar(.double(value)), key) }
    mutating func encode(_ value: Float, forKey key: Key) { set(.scalar(.double(Double(value))), key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(.scalar(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.scalar(.integer(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(try .integer(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(try .integer(value, codingPath: codingPath + [key]), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try .encoding(value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Node()
        set(child, key)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node()
        set(child, key)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// The parent's part under `"super"`, as `JSONEncoder` writes it, whether or not `Key` has such a case.
    mutating func superEncoder() -> any Encoder { encoder(under: LuaCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(under: key) }

    private func encoder(under key: some CodingKey) -> any Encoder {
        let child = Node()
        set(child, key)
        return NodeEncoder(node: child, codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int { node.elements!.count }

    private func append(_ child: Node) { node.elements!.append(child) }
    private var elementPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() { append(.scalar(.null)) }
    mutating func encode(_ value: Bool) { append(.scalar(.bool(value))) }
    mutating func encode(_ value: String) { append(.scalar(.string(value))) }
    mutating func encode(_ value: Double) { append(.scalar(.double(value))) }
    mutating func encode(_ value: Float) { append(.scalar(.double(Double(value)))) }
    mutating func encode(_ value: Int) { append(.scalar(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) { append(.scalar(.integer(value))) }
    mutating func encode(_ value: UInt64) throws { append(try .integer(value, codingPath: elementPath)) }
    mutating func encode(_ value: UInt) throws { append(try .integer(value, codingPath: elementPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { append(try .encoding(value, codingPath: elementPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        let path = elementPath
        append(child)
        return NodeEncoder(node: child, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node()
        let path = elementPath
        append(child)
        return NodeEncoder(node: child, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node()
        let path = elementPath
        append(child)
        return NodeEncoder(node: child, codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]

    mutating func encodeNil() { node.scalar = .null }
    mutating func encode(_ value: Bool) { node.scalar = .bool(value) }
    mutating func encode(_ value: String) { node.scalar = .string(value) }
    mutating func encode(_ value: Double) { node.scalar = .double(value) }
    mutating func encode(_ value: Float) { node.scalar = .double(Double(value)) }
    mutating func encode(_ value: Int) { node.scalar = .integer(Int64(value)) }
    mutating func encode(_ value: Int64) { node.scalar = .integer(value) }
    mutating func encode(_ value: UInt64) throws { node.scalar = try Node.integer(value, codingPath: codingPath).scalar }
    mutating func encode(_ value: UInt) throws { node.scalar = try Node.integer(value, codingPath: codingPath).scalar }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let child = try Node.encoding(value, codingPath: codingPath)
        node.scalar = child.scalar
        node.members = child.members
        node.elements = child.elements
    }
}

/// The coding key of an array element.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
