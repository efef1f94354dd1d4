import MoonbladeLua

/// A value crossing between Swift and Lua outside the VM: a payload waiting to be applied, or the
/// result of Swift work a Lua side effect awaits. Pushed onto a Lua stack when the VM is held.
enum PluginValue: Sendable {
    case none
    /// A Swift value, encoded with `LuaEncoder` when pushed.
    case encodable(any Encodable & Sendable)
    /// A snapshot of a Lua value (a payload Lua code dispatched, a Lua side effect's result).
    case lua(LuaValue)

    /// A payload Swift passes with a dispatch by name.
    init(payload: (any Encodable & Sendable)?) {
        self = payload.map { .encodable($0) } ?? .none
    }

    /// The value of a finished dispatch, as Lua will see it.
    init(result: any Sendable) {
        switch result {
        case let value as LuaValue: self = .lua(value)
        case is Void: self = .none
        case let value as any Encodable & Sendable: self = .encodable(value)
        default: self = .none  // a Swift result with no Lua form: Lua sees nil
        }
    }

    func push(onto stack: LuaStack, encoder: LuaEncoder) throws {
        switch self {
        case .none: stack.pushNil()
        case .encodable(let value): try encoder.push(value, onto: stack)
        case .lua(let value): try stack.push(value)
        }
    }
}
