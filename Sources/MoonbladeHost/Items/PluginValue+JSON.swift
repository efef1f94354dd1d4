import MoonbladeLua

extension PluginValue {
    /// The value as JSON, for tools that compare payloads (the tester's `receive(_:_:)`): a Lua
    /// sequence `1..n` is an array, other tables objects with their keys as text; nil when the value
    /// has no JSON form.
    var json: JSONValue? {
        switch self {
        case .none: return JSONValue.null
        case .encodable(let value): return try? JSONValue(encoding: value)
        case .lua(let value): return Self.json(of: value)
        }
    }

    private static func json(of value: LuaValue) -> JSONValue {
        switch value {
        case .nil: return .null
        case .boolean(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .number(let number): return .double(number)
        case .string(let text): return .string(text)
        case .table(let entries):
            let isSequence = (1...max(entries.count, 1)).allSatisfy { entries[.integer(Int64($0))] != nil } || entries.isEmpty
            if isSequence, !entries.isEmpty {
                return .array((1...entries.count).map { json(of: entries[.integer(Int64($0))]!) })
            }
            return .object(Dictionary(entries.map { key, element in (text(of: key), json(of: element)) }) { first, _ in first })
        }
    }

    private static func text(of key: LuaValue) -> String {
        switch key {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .boolean(let flag): String(flag)
        case .nil, .table: "?"
        }
    }
}
