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
/// metatable (``LuaTableKind``): an empty object or array from JSON comes back from Lua as it went in,
/// an object Lua code empties stays an object, and plugins say which they mean with
/// `moonblade.object()` or `moonblade.array()`. An unmarked empty table (a plain `{}` made in Lua)
/// reads back as an empty array. JSON has no NaN or infinity, so a
/// Lua number that is one fails to decode, naming its path.
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
        // From Lua, a table says which it is, empty ones too (by their marker); and an error inside it
        // (a NaN deep down) comes out with its path instead of being taken for the wrong kind.
        if let kind = (decoder as? any LuaTableKindDecoding)?.tableKind {
            switch kind {
            case .array: self = .array(try container.decode([JSONValue].self))
            case .object: self = .object(try container.decode([String: JSONValue].self))
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
            guard value.isFinite else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: value.isNaN
                        ? "JSON has no NaN, found number nan" : "JSON has no infinity, found number \(value)")
            }
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
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
