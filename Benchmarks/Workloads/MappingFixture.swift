import CLua
import Foundation
import MoonbladeLua

/// A VM holding a state of `count` items as a table, with the pure-Lua JSON codec loaded: what every
/// mapping benchmark of one size works on. Creating it checks that the three ways of mapping the
/// state agree, so the benchmarks compare equal work.
public final class MappingFixture {
    /// One way of moving the state between Swift and Lua.
    public enum Way: String, CaseIterable, Sendable {
        /// Moonblade's `LuaEncoder` and `LuaDecoder`.
        case luaCoders = "LuaEncoder/LuaDecoder"
        /// Field-by-field raw C API code, as a C programmer would write it (the baseline).
        case handWritten = "hand-written C API"
        /// `JSONEncoder` and a pure-Lua JSON decoder in, a pure-Lua JSON encoder and `JSONDecoder` out.
        case jsonDetour = "JSON detour"
    }

    public let vm: LuaVM
    public let state: ItemsState
    /// Where the state sits on the stack as a table, for mapping out of Lua.
    private let tableIndex: Int32
    private let encoder = LuaEncoder()
    private let decoder = LuaDecoder()
    private let jsonEncoder = JSONEncoder()
    private let jsonDecoder = JSONDecoder()
    private let luaJSONDecode: LuaReference
    private let luaJSONEncode: LuaReference

    public init(count: Int) throws {
        vm = try LuaVM()
        state = ItemsState(count: count)
        let stack = vm.stack
        try stack.load(try BenchmarkFiles.luaSource("json.lua"), chunkName: "json.lua")
        try stack.call(results: 1)
        stack.rawGet(table: -1, field: "decode")
        luaJSONDecode = stack.popReference()
        stack.rawGet(table: -1, field: "encode")
        luaJSONEncode = stack.popReference()
        stack.pop()
        try encoder.push(state, onto: stack)
        tableIndex = stack.top
        try checkAgreement()
    }

    /// Builds the state as a Lua table `way`, then drops the table.
    public func mapIntoLua(_ way: Way) throws {
        try push(way)
        vm.stack.pop()
    }

    /// Reads the state back from its Lua table `way`.
    public func mapOutOfLua(_ way: Way) throws -> ItemsState {
        let stack = vm.stack
        switch way {
        case .luaCoders:
            return try decoder.decode(ItemsState.self, from: stack, at: tableIndex)
        case .handWritten:
            guard let state = ItemsState(byHandFrom: stack.state, at: tableIndex) else {
                throw MappingDisagreement(way: way.rawValue)
            }
            return state
        case .jsonDetour:
            stack.pushCopy(of: tableIndex)
            try stack.call(arguments: 1, results: 1, function: luaJSONEncode)
            defer { stack.pop() }
            let json = stack.withStringBytes(at: -1) { Data($0) } ?? Data()
            return try jsonDecoder.decode(ItemsState.self, from: json)
        }
    }

    /// Pushes the state as a Lua table `way`.
    private func push(_ way: Way) throws {
        let stack = vm.stack
        switch way {
        case .luaCoders:
            try encoder.push(state, onto: stack)
        case .handWritten:
            state.pushByHand(onto: stack.state)
        case .jsonDetour:
            let json = try jsonEncoder.encode(state)
            json.withUnsafeBytes { _ = lua_pushlstring(stack.state, $0.baseAddress, $0.count) }
            try stack.call(arguments: 1, results: 1, function: luaJSONDecode)
        }
    }

    /// Throws unless every way into Lua builds a table that every way out of Lua reads as `state`.
    private func checkAgreement() throws {
        let stack = vm.stack
        for way in Way.allCases {
            try push(way)
            defer { stack.pop() }
            guard try decoder.decode(ItemsState.self, from: stack, at: -1) == state,
                ItemsState(byHandFrom: stack.state, at: stack.top) == state
            else { throw MappingDisagreement(way: "\(way.rawValue) into Lua") }
        }
        for way in Way.allCases where try mapOutOfLua(way) != state {
            throw MappingDisagreement(way: "\(way.rawValue) out of Lua")
        }
    }
}

/// One way of mapping the benchmark state did not give back the state it started from.
struct MappingDisagreement: Error, CustomStringConvertible {
    var way: String
    var description: String { "the \(way) mapping does not round-trip the benchmark state" }
}
