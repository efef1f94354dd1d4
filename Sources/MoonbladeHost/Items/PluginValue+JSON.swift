import MoonbladeLua

extension PluginValue {
    /// The value as JSON (see ``JSONValue/init(luaValue:)`` for Lua tables); nil when there is none.
    func json() throws -> JSONValue? {
        switch self {
        case .none: return nil
        case .lua(let value): return try JSONValue(luaValue: value)
        case .encodable(let value as JSONValue): return value
        case .encodable(let value): return try JSONValue(encoding: value)
        }
    }
}
