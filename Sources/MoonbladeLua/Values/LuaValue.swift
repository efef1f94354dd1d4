/// A Lua value as plain Swift data: what a script can pass to and get back from the host.
///
/// Functions, coroutines and userdata have no data form; reading one as a `LuaValue` is a
/// `LuaError` of kind `.conversion` (hold them with ``LuaReference`` instead). Tables are snapshots:
/// reading one copies it, so a table that contains itself is a conversion error, not a hang. JSON's
/// shapes survive a snapshot: the `null` sentinel is ``null``, and a table marked as an object
/// (``LuaTableKind``) is an ``object(_:)``, so a value Lua hands on keeps its nulls and its empty objects.
public enum LuaValue: Sendable, Hashable {
    /// `nil`.
    case `nil`
    /// The `null` sentinel (`moonblade.null`, ``LuaStack/pushNull()``): JSON's null where a table keeps it.
    case null
    /// `true` or `false`.
    case boolean(Bool)
    /// A Lua integer.
    case integer(Int64)
    /// A Lua float.
    case number(Double)
    /// A string (Lua strings are bytes; these are read as UTF-8).
    case string(String)
    /// A snapshot of a table: its keys and values.
    case table([LuaValue: LuaValue])
    /// A snapshot of a table marked as an object (`moonblade.object()`, a JSON object the host pushed):
    /// its keys and values, and the mark, so that it stays an object when it is or becomes empty.
    case object([LuaValue: LuaValue])

    /// The Lua type this value has once pushed.
    public var type: LuaType {
        switch self {
        case .nil: .nil
        case .null: .lightUserdata
        case .boolean: .boolean
        case .integer, .number: .number
        case .string: .string
        case .table, .object: .table
        }
    }

    /// The value at `key` when this is a table, `.nil` otherwise (like indexing in Lua, minus errors).
    public subscript(key: LuaValue) -> LuaValue {
        switch self {
        case .table(let entries), .object(let entries): entries[key] ?? .nil
        default: .nil
        }
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }

    /// A sequence: the elements at keys 1, 2, 3, …
    public init(arrayLiteral elements: LuaValue...) {
        self = .table(Dictionary(uniqueKeysWithValues: elements.enumerated().map { (.integer(Int64($0 + 1)), $1) }))
    }

    public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
        self = .table(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
