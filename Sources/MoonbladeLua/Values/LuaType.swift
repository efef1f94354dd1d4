import CLua

/// The type of a Lua value, as `lua_type` reports it.
public enum LuaType: Int32, Sendable, CustomStringConvertible {
    /// No value: an index past the top of the stack.
    case none = -1
    /// `nil`.
    case `nil` = 0
    /// `true` or `false`.
    case boolean = 1
    /// A raw C pointer.
    case lightUserdata = 2
    /// An integer or a float.
    case number = 3
    /// A string of bytes.
    case string = 4
    /// A table.
    case table = 5
    /// A Lua or C function.
    case function = 6
    /// A block of host memory with a metatable.
    case userdata = 7
    /// A coroutine.
    case thread = 8

    /// The name Lua uses (`type(v)`), e.g. `"table"`.
    public var description: String {
        switch self {
        case .none: "no value"
        case .nil: "nil"
        case .boolean: "boolean"
        case .lightUserdata, .userdata: "userdata"
        case .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .thread: "thread"
        }
    }
}
