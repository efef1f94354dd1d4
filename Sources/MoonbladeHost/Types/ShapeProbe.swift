import Foundation

/// A decoder that decodes any `Decodable` from placeholders (`""`, `0`, `false`, one element per
/// array, no dictionary keys) and records the shape it was asked for; the values it hands back to
/// the type's initializer are as small as can be (no element, nil for an optional).
///
/// A `CaseIterable` type (an enum with raw values, mostly) is given its first case. A type whose
/// initializer refuses the placeholders all the same (such an enum that is not `CaseIterable`, a
/// validating initializer) keeps what was recorded before it threw, and the type holding it is a
/// ``LuaShape/partialObject(name:fields:)``: its fields past that one are unknown.
final class ShapeProbe: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    private(set) var shape: LuaShape = .any
    /// Whether a single-value container was asked whether it holds nil (Optional's decoding does).
    fileprivate var askedForNil = false
    private var fields: [LuaShape.Field] = []
    private var isKeyed = false
    /// Keys asked about with `decodeNil(forKey:)`: their value may be missing (`decodeIfPresent`).
    fileprivate var optionalKeys: Set<String> = []
    /// The types being probed and the shapes found so far.
    private let probing: Probing
    /// Whether this probe only makes a value, as small as it can be: no element in an array, nil
    /// for every optional. The values containers return are made so: made with an element in each
    /// array, a recursive type's (`Node { children: [Node] }`) had a child with a child with a
    /// child… until the stack overflowed.
    fileprivate let minimal: Bool
    /// How many minimal values deep this one is: a type that holds itself without an array or an
    /// optional between (through a class) cannot be made, and the probe gives up on it.
    private let depth: Int

    private init(probing: Probing, minimal: Bool = false, depth: Int = 0) {
        self.probing = probing
        self.minimal = minimal
        self.depth = depth
    }

    /// Why a value could not be made.
    private struct TooDeep: Error {}

    static func shape<T: Decodable>(of type: T.Type) -> LuaShape {
        shape(of: type, probing: Probing())
    }

    fileprivate static func shape<T: Decodable>(of type: T.Type, probing: Probing) -> LuaShape {
        if let known = primitive(type) { return known }
        if let dictionary = type as? any StringKeyedDictionary.Type { return .map(dictionary.valueShape(probing: probing)) }
        if let dictionary = type as? any IntegerKeyedDictionary.Type {
            return .integerKeyedMap(dictionary.valueShape(probing: probing))
        }
        let name = String(describing: type)
        if type == JSONValue.self { return .any }
        // The type's own class, declared where it is probed further out.
        if probing.active.contains(name) { return .object(name: name, fields: []) }
        if let known = probing.known.shapes[name] { return known }
        let shape = probedShape(of: type, named: name, probing: probing)
        probing.known.shapes[name] = shape
        return shape
    }

    private static func probedShape<T: Decodable>(of type: T.Type, named name: String, probing: Probing) -> LuaShape {
        var inside = probing
        inside.active.insert(name)
        let probe = ShapeProbe(probing: inside)
        let complete = (try? T(from: probe)) != nil
        if probe.isKeyed {
            if complete { return .object(name: name, fields: probe.fields) }
            // Not one field known (an enum with associated values: a table of its case's name).
            return probe.fields.isEmpty ? .map(.any) : .partialObject(name: name, fields: probe.fields)
        }
        // Optional's own decoding asks whether the value is nil: an element of `[String?]` may be.
        return probe.askedForNil ? .optional(of: probe.shape) : probe.shape
    }

    /// The first case of a `CaseIterable` type, a value of it that its initializer would refuse to
    /// decode from a placeholder.
    private static func firstCase<C: CaseIterable>(of type: C.Type) -> C? {
        type.allCases.first
    }

    private static func primitive(_ type: Any.Type) -> LuaShape? {
        switch type {
        case is String.Type, is URL.Type, is UUID.Type: .string
        case is Bool.Type: .boolean
        case is Double.Type, is Float.Type, is Date.Type, is Decimal.Type: .number
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
            is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            .integer
        default: nil
        }
    }

    /// A placeholder of a primitive type, or nil for a type that must be probed.
    fileprivate static func placeholder<T>(_ type: T.Type) -> T? {
        switch type {
        case is String.Type: "" as? T
        case is Bool.Type: false as? T
        case is Double.Type: 0.0 as? T
        case is Float.Type: Float(0) as? T
        case is Int.Type: 0 as? T
        case is Int64.Type: Int64(0) as? T
        case is Int32.Type: Int32(0) as? T
        case is Int16.Type: Int16(0) as? T
        case is Int8.Type: Int8(0) as? T
        case is UInt.Type: UInt(0) as? T
        case is UInt64.Type: UInt64(0) as? T
        case is UInt32.Type: UInt32(0) as? T
        case is UInt16.Type: UInt16(0) as? T
        case is UInt8.Type: UInt8(0) as? T
        default: nil
        }
    }

    /// Decodes `T` for the container asking, recording its shape through `record`.
    fileprivate func probe<T: Decodable>(_ type: T.Type, record: (LuaShape) -> Void) throws -> T {
        if !minimal { record(Self.shape(of: type, probing: probing)) }
        if let value = Self.placeholder(type) { return value }
        if let enumerable = type as? any CaseIterable.Type, let value = Self.firstCase(of: enumerable) as? T { return value }
        // The shape is recorded; the value the container must return is made as small as it can be,
        // recording nothing. (Made by probing again, each level probed the levels below it once more:
        // twice the work a level deeper.)
        guard depth < 64 else { throw TooDeep() }
        return try T(from: ShapeProbe(probing: probing, minimal: true, depth: depth + 1))
    }

    fileprivate func addField(_ key: any CodingKey, _ shape: LuaShape) {
        var shape = shape
        if optionalKeys.contains(key.stringValue) { shape = .optional(of: shape) }
        if let index = fields.firstIndex(where: { $0.name == key.stringValue }) {
            fields[index].shape = shape
        } else {
            fields.append(LuaShape.Field(name: key.stringValue, shape: shape))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        isKeyed = true
        return KeyedDecodingContainer(Keyed<Key>(probe: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        shape = .array(.any)
        return Unkeyed(probe: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(probe: self)
    }

    /// A probe for a nested container, making values as this one does.
    fileprivate func nested() -> ShapeProbe {
        ShapeProbe(probing: probing, minimal: minimal, depth: depth)
    }

    fileprivate func setShape(_ shape: LuaShape) {
        self.shape = shape
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let probe: ShapeProbe
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool {
            probe.optionalKeys.insert(key.stringValue)
            return probe.minimal
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try probe.probe(type) { probe.addField(key, $0) }
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if probe.minimal { return nil }
            return try probe.probe(type) { probe.addField(key, .optional(of: $0)) }
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            probe.addField(key, .any)
            return KeyedDecodingContainer(Keyed<NestedKey>(probe: probe.nested()))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            probe.addField(key, .array(.any))
            return Unkeyed(probe: probe.nested())
        }
        func superDecoder() throws -> any Decoder { probe }
        func superDecoder(forKey key: Key) throws -> any Decoder { probe.nested() }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let probe: ShapeProbe
        var codingPath: [any CodingKey] { [] }
        var count: Int? { probe.minimal ? 0 : 1 }
        var currentIndex = 0
        var isAtEnd: Bool { probe.minimal || currentIndex > 0 }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try probe.probe(type) { probe.setShape(.array($0)) }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            currentIndex += 1
            return KeyedDecodingContainer(Keyed<NestedKey>(probe: probe.nested()))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(probe: probe.nested())
        }
        mutating func superDecoder() throws -> any Decoder { probe }
    }

    private struct Single: SingleValueDecodingContainer {
        let probe: ShapeProbe
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool {
            probe.askedForNil = true
            return probe.minimal
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try probe.probe(type) { probe.setShape($0) }
        }
    }
}

/// A dictionary with string keys: a Lua table whose values have one shape.
private protocol StringKeyedDictionary {
    static func valueShape(probing: Probing) -> LuaShape
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    fileprivate static func valueShape(probing: Probing) -> LuaShape {
        ShapeProbe.shape(of: Value.self, probing: probing)
    }
}

/// A dictionary with `Int` keys: a Lua table with integer keys whose values have one shape.
private protocol IntegerKeyedDictionary {
    static func valueShape(probing: Probing) -> LuaShape
}

extension Dictionary: IntegerKeyedDictionary where Key == Int, Value: Decodable {
    fileprivate static func valueShape(probing: Probing) -> LuaShape {
        ShapeProbe.shape(of: Value.self, probing: probing)
    }
}

/// What one probe of a type shares with the probes of the types inside it: the types being probed,
/// so a recursive type stops at itself, and the shapes found so far, so a type used in many places is
/// probed once. (Probed again at each use, a type of types of types took twice the work a level deeper.)
private struct Probing {
    var active: Set<String> = []
    let known = KnownShapes()

    final class KnownShapes {
        var shapes: [String: LuaShape] = [:]
    }
}
