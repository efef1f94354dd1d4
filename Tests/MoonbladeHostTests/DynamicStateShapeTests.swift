import Foundation
import MoonbladeHost
import Testing

/// The dynamic state keeps its shape through Lua: empty objects and arrays keep their kind, and what
/// JSON cannot hold (NaN, infinity, a state that is not a table) fails the dispatch, state untouched.
@Suite struct DynamicStateShapeTests {
    static let plugin = """
        return {
          name = "shape",
          updaters = {
            touch = function(state) state.touched = true end,
            clear = function(state) state.items.a = nil end,
            make = function(state, p)
              state.list = moonblade.array()
              state.record = moonblade.object()
              state.plain = {}
            end,
            fill = function(state) local list = moonblade.array(); list[1] = "x"; state.list = list end,
            nan = function(state) state.deep = { values = { 1, 0/0 } } end,
            inf = function(state) state.limit = 1/0 end,
            ninf = function(state) state.limit = -1/0 end,
            number = function() return 42 end,
            text = function() return "state" end,
            flag = function() return false end,
            tamper = function() moonblade.array = nil end,
            remark = function(state) setmetatable(state.meta, {}) end,
          },
          side_effects = {
            echo = function(ctx, p) return p end,
            nan_result = function() return { ratio = 0/0 } end,
          },
        }
        """

    let scratch = ScratchPlugins()

    func host(_ state: JSONValue) throws -> PluginHost<JSONValue> {
        let host = try PluginHost<JSONValue>(plugins: [try scratch.write("shape", Self.plugin)], initialState: state)
        #expect(host.loadErrors.isEmpty)
        return host
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        #"{"meta": {}}"#, #"{"tags": []}"#, #"{"a": {"b": {}, "c": [], "d": [{}, []]}}"#,
        #"{"items": [], "index": {}, "n": 1}"#,
    ])
    func emptyTablesFromJSONKeepTheirKindThroughADispatch(_ text: String) async throws {
        let state = try Self.json(text)
        let host = try host(state)
        try await host.dispatch("shape.touch").value
        guard case .object(var members) = host.state else { Issue.record("not an object"); return }
        #expect(members.removeValue(forKey: "touched") == true)
        #expect(JSONValue.object(members) == state)
        #expect(host.state.jsonString() == JSONValue.object(members.merging(["touched": true]) { $1 }).jsonString())
    }

    @Test func anObjectEmptiedInLuaStaysAnObject() async throws {
        let host = try host(try Self.json(#"{"items": {"a": 1}}"#))
        try await host.dispatch("shape.clear").value
        #expect(host.state["items"] == .object([:]))
        try await host.dispatch("shape.touch").value
        #expect(host.state["items"] == .object([:]))
    }

    @Test func pluginsSayWhichEmptyTheyMean() async throws {
        let host = try host([:])
        try await host.dispatch("shape.make").value
        #expect(host.state["list"] == .array([]))
        #expect(host.state["record"] == .object([:]))
        #expect(host.state["plain"] == .array([]))  // unmarked: an empty array, as before
        try await host.dispatch("shape.touch").value
        #expect(host.state["record"] == .object([:]))
        try await host.dispatch("shape.fill").value
        #expect(host.state["list"] == ["x"])
    }

    @Test func payloadsAndResultsKeepTheirKindToo() async throws {
        let host = try host([:])
        let payload = try Self.json(#"{"none": {}, "empty": [], "nested": [{}]}"#)
        let echoed = try await host.dispatch("shape.echo", payload, returning: JSONValue.self).value
        #expect(echoed == payload)
    }

    @Test func theLibraryIsReadOnlyAndTheMarkersProtected() async throws {
        let host = try host(try Self.json(#"{"meta": {}}"#))
        let before = host.state
        let tampered = await #expect(throws: PluginError.self) { try await host.dispatch("shape.tamper").value }
        #expect(tampered?.description.contains("shape/plugin.lua:18: moonblade is read-only") == true, "\(String(describing: tampered))")
        #expect(host.state == before)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("shape.remark").value }
        #expect(error?.description.contains("setmetatable: a state draft cannot be given a metatable") == true)
        try await host.dispatch("shape.make").value
        #expect(host.state["record"] == .object([:]))
    }

    @Test(arguments: [
        ("shape.nan", "state.deep.values[2]", "NaN"), ("shape.inf", "state.limit", "infinity"),
        ("shape.ninf", "state.limit", "infinity"),
    ])
    func nonFiniteNumbersFailNamingThePathAndLeaveTheState(_ item: String, _ path: String, _ word: String) async throws {
        let state = try Self.json(#"{"meta": {}, "n": 1}"#)
        let host = try host(state)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch(item).value }
        #expect(error?.kind == .invalidState)
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(error?.description.contains("JSON has no \(word)") == true, "\(String(describing: error))")
        #expect(host.state == state)
    }

    @Test func aNonFiniteResultFailsTheSideEffectNamingThePath() async throws {
        let host = try host([:])
        let error = await #expect(throws: PluginError.self) {
            try await host.dispatch("shape.nan_result", returning: JSONValue.self).value
        }
        #expect(error?.description.contains("ratio") == true, "\(String(describing: error))")
        #expect(error?.description.contains("JSON has no NaN") == true)
    }

    @Test(arguments: [("shape.number", "number"), ("shape.text", "string"), ("shape.flag", "boolean")])
    func anUpdaterReturningANonTableIsRefused(_ item: String, _ type: String) async throws {
        let state = try Self.json(#"{"n": 1}"#)
        let host = try host(state)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch(item).value }
        #expect(error?.kind == .invalidState)
        #expect(error?.message.hasPrefix("returned a \(type);") == true, "\(String(describing: error))")
        #expect(error?.location?.source == "shape/plugin.lua")
        #expect(host.state == state)
    }
}
