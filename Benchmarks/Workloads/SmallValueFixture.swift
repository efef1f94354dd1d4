import CLua
import MoonbladeLua

/// One small value moved between Swift and Lua: an ``EchoRequest`` (one `Int` field), what a side
/// effect's payload, a dependency's arguments or a one-field state costs. What the coders spend here
/// beyond the field is their fixed cost per call, paid on every dispatch path of the host.
public final class SmallValueFixture {
    /// One way of moving the value between Swift and Lua.
    public enum Way: String, CaseIterable, Sendable {
        /// Moonblade's `LuaEncoder` and `LuaDecoder`.
        case luaCoders = "LuaEncoder/LuaDecoder"
        /// Raw C API code, as a C programmer would write it (the baseline).
        case handWritten = "hand-written C API"
    }

    public let vm: LuaVM
    public let value = EchoRequest(n: 1)
    /// Where the value sits on the stack as a table, for reading it out of Lua.
    private let tableIndex: Int32
    private let encoder = LuaEncoder()
    private let decoder = LuaDecoder()

    public init() throws {
        vm = try LuaVM()
        try encoder.push(value, onto: vm.stack)
        tableIndex = vm.stack.top
        for way in Way.allCases {
            try mapIntoLua(way)
            guard try mapOutOfLua(way).n == value.n else { throw MappingDisagreement(way: way.rawValue) }
        }
    }

    /// Pushes the value `way`, then drops the table.
    public func mapIntoLua(_ way: Way) throws {
        let lua = vm.stack.state
        switch way {
        case .luaCoders: try encoder.push(value, onto: vm.stack)
        case .handWritten:
            lua_createtable(lua, 0, 1)
            lua_pushlstring(lua, "n", 1)
            lua_pushinteger(lua, lua_Integer(value.n))
            lua_rawset(lua, -3)
        }
        moonblade_pop(lua, 1)
    }

    /// Reads the value back from its table `way`.
    public func mapOutOfLua(_ way: Way) throws -> EchoRequest {
        let lua = vm.stack.state
        switch way {
        case .luaCoders: return try decoder.decode(EchoRequest.self, from: vm.stack, at: tableIndex)
        case .handWritten:
            guard lua_type(lua, tableIndex) == LUA_TTABLE else { throw MappingDisagreement(way: way.rawValue) }
            lua_pushlstring(lua, "n", 1)
            defer { moonblade_pop(lua, 1) }
            var isInteger: Int32 = 0
            let n = lua_rawget(lua, tableIndex) == LUA_TNUMBER ? lua_tointegerx(lua, -1, &isInteger) : 0
            guard isInteger != 0 else { throw MappingDisagreement(way: way.rawValue) }
            return EchoRequest(n: Int(n))
        }
    }
}
