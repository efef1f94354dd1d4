import Foundation

/// A decoder that decodes any `Decodable` from placeholders (`""`, `0`, `false`, one element per
/// array, no dictionary keys) and records the shape it was asked for.
///
/// A type whose initializer refuses the placeholders (an enum with raw values, a validating
/// initializer) keeps what was recorded before it threw; past that point its shape is `any`.
final class ShapeProbe: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    private(set) var shape: LuaShape = .any
    private var fields: [LuaShape.Field] = []
    private var isKeyed = false
    /// Keys asked about with `decodeNil(forKey:)`: their value may be missing (`decodeIfPresent`).
    fileprivate var optionalKeys: Set<String> = []
    /// Type names being probed, so a recursive type stops instead of probing forever.
    private let active: Set<String>

    private init(active: Set<String>) {
        self.active = active
    }

    static func shape<T: Decodable>(of type: T.Type) -> LuaShape {
        shape(of: type, active: [])
    }

    fileprivate static func shape<T: Decodable>(of type: T.Type, active: Set<String>) -> LuaShape {
        if let known = primitive(type) { return known }
        if let dictionary = type as? any StringKeyedDictionary.Type { return .map(dictionary.valueShape(active: active)) }
        let name = String(describing: type)
        if type == JSONValue.self || active.contains(name) { return .any }
        let probe = ShapeProbe(active: active.union([name]))
        _ = try? T(from: probe)
        if probe.isKeyed { return .object(name: name, fields: probe.fields) }
        return probe.shape
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
        record(Self.shape(of: type, active: active))
        if let value = Self.placeholder(type) { return value }
        return try T(from: ShapeProbe(active: active))
    }

    fileprivate func addField(_ key: any CodingKey, _ shape: LuaShape) {
        var shape = shape
        if optionalKeys.contains(key.stringValue), !shape.isOptional { shape = .optional(shape) }
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
            return false
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try probe.probe(type) { probe.addField(key, $0) }
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try probe.probe(type) { probe.addField(key, .optional($0)) }
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            probe.addField(key, .any)
            return KeyedDecodingContainer(Keyed<NestedKey>(probe: ShapeProbe(active: probe.active)))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            probe.addField(key, .array(.any))
            return Unkeyed(probe: ShapeProbe(active: probe.active))
        }
        func superDecoder() throws -> any Decoder { probe }
        func superDecoder(forKey key: Key) throws -> any Decoder { ShapeProbe(active: probe.active) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let probe: ShapeProbe
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex > 0 }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try probe.probe(type) { probe.setShape(.array($0)) }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            currentIndex += 1
            return KeyedDecodingContainer(Keyed<NestedKey>(probe: ShapeProbe(active: probe.active)))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(probe: ShapeProbe(active: probe.active))
        }
        mutating func superDecoder() throws -> any Decoder { probe }
    }

    private struct Single: SingleValueDecodingContainer {
        let probe: ShapeProbe
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try probe.probe(type) { probe.setShape($0) }
        }
    }
}

/// A dictionary with string keys: a Lua table whose values have one shape.
private protocol StringKeyedDictionary {
    static func valueShape(active: Set<String>) -> LuaShape
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    fileprivate static func valueShape(active: Set<String>) -> LuaShape {
        ShapeProbe.shape(of: Value.self, active: active)
    }
}
