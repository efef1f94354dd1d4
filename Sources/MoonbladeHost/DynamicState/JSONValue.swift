import Moonblade
import MoonbladeLua

/// A JSON-like value: a state, payload or result whose shape only the plugins know.
///
/// Use it as the store's state to run any plugin without a Swift struct (`PluginHost<JSONValue>`), as
/// a payload for `dispatch(_:_:)`, or as the result type of a returning Lua side effect. It maps to
/// Lua and JSON alike: objects ↔ tables with string keys, arrays ↔ sequences, and Lua's integer and
/// float subtypes stay apart (`1` stays an integer, `1.5` a float).
///
/// Lua has one `{}` for an empty object and an empty array, so an object's table carries a marker
/// metatable (`LuaTableKind` in MoonbladeLua): an empty object or array from JSON comes back from Lua as it went in,
/// an object Lua code empties stays an object, and plugins say which they mean with
/// `moonblade.object()` or `moonblade.array()`. An unmarked empty table (a plain `{}` made in Lua)
/// reads back as an empty array. JSON's `null` inside an object or array is `moonblade.null` in Lua,
/// so a member whose value is null keeps its key and an array its length (`nil` removes a key); a
/// `null` on its own (a payload) is `nil`. JSON has no NaN or infinity, so a Lua number that is one fails to decode, naming its path.
/// JSON text is read with ``init(json:)-(Sequence<UInt8>)``, which refuses what it would have to guess.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null` (Lua `nil`).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction.
    case integer(Int64)
    /// A number with a fraction.
    case double(Double)
    /// A string.
    case string(String)
    /// An array (a Lua sequence).
    case array([JSONValue])
    /// An object (a Lua table with string keys).
    case object([String: JSONValue])
}

extension JSONValue: State {
    /// An empty object: the state a dynamic store starts from.
    public init() { self = .object([:]) }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // From Lua, the value says what it is: a float stays a float (`1.0` would pass the integer
        // probe), a table says which kind it is, empty ones too (by their marker), and an error inside
        // it (a NaN deep down, a string that is not UTF-8) comes out with its path instead of being
        // taken for the wrong kind.
        if let lua = decoder as? any LuaValueKindDecoding {
            let kind = lua.valueKind
            // As deep as JSON text is read, so that what a plugin nests can be saved and read back.
            if case .table = kind, lua.codingPathCount >= Self.maximumDepth {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "nested more than \(Self.maximumDepth) levels deep")
            }
            switch kind {
            case .null: self = .null
            case .boolean: self = .bool(try container.decode(Bool.self))
            case .integer: self = .integer(try container.decode(Int64.self))
            case .float: self = .double(try Self.finite(container.decode(Double.self), in: container))
            case .string: self = .string(try container.decode(String.self))
            case .table(.array):
                do {
                    self = .array(try container.decode([JSONValue].self))
                } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == lua.codingPathCount {
                    guard let stray = context.underlyingError as? LuaSequenceStrayKey else { throw DecodingError.dataCorrupted(context) }
                    throw DecodingError.dataCorruptedError(
                        in: container,
                        debugDescription:
                            "a table with both [1] and the key \(stray.key) is neither a JSON array (keys 1…n) nor an object (string keys)")
                }
            case .table(.object): self = .object(try container.decode([String: JSONValue].self))
            case .other(let found):
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "JSON has no \(found): expected nil, a boolean, number, string or table")
            }
            return
        }
        // Probe the scalar forms first: a table fails each of them quickly, and the order keeps Lua
        // and JSON booleans from reading as numbers and integers from reading as floats.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(try Self.finite(value, in: container))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// `value`, which must be finite: JSON has no NaN or infinity.
    private static func finite(_ value: Double, in container: any SingleValueDecodingContainer) throws -> Double {
        guard value.isFinite else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: value.isNaN
                    ? "JSON has no NaN, found number nan" : "JSON has no infinity, found number \(value)")
        }
        return value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null:
            // Inside a table, null is `moonblade.null` in Lua: the table keeps it where `nil` would
            // drop the key or make a hole in the array. Alone (no payload, say) it is `nil`.
            if let lua = encoder as? any LuaNullEncoding, !encoder.codingPath.isEmpty { return try lua.encodeNull() }
            try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value):
            try container.encode(value)
            // Marked, the table stays an object in Lua even when it is or becomes empty.
            (encoder as? any LuaTableKindEncoding)?.markTable(as: .object)
        }
    }
}

extension JSONValue {
    /// The member named `key` of an object; nil for anything else or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` (0-based) of an array; nil for anything else or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
