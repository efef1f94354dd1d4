import Foundation
import MoonbladeHost
import Testing

struct JSONValueTests {
    @Test func aDynamicStateRunsAPluginWithoutASwiftStruct() async throws {
        let host = try PluginHost<JSONValue>(plugins: [shippedPlugin("counter")], initialState: ["counter": 1])
        try await host.dispatch("counter.increment", ["by": 41]).value
        #expect(host.state == ["counter": 42])
    }

    @Test func luaKeepsEveryKindOfValueAndItsNumberSubtype() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "shape",
            """
            return { name = "shape", version = 1, updaters = {
              fill = function(state)
                state.flag, state.count, state.ratio, state.title = true, 3, 0.5, "milk"
                state.tags, state.nested = { "a", "b" }, { deep = { 1, 2.5 } }
              end,
            } }
            """)
        let host = try PluginHost<JSONValue>(plugins: [plugin])
        try await host.dispatch("shape.fill", JSONValue.null).value
        let expected: JSONValue = [
            "flag": true, "count": 3, "ratio": 0.5, "title": "milk",
            "tags": ["a", "b"], "nested": ["deep": [1, 2.5]],
        ]
        #expect(host.state == expected)
        #expect(host.state["nested"]?["deep"]?[0] == .integer(1))
    }

    @Test func jsonRoundTripsThroughCodable() throws {
        let text = #"{"a":[1,2.5,"x",true,null],"b":{}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value == ["a": [1, 2.5, "x", true, nil], "b": [:]])
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test func subscriptsAnswerNilForTheWrongShape() {
        let value: JSONValue = ["list": [1]]
        #expect(value["list"]?[0] == 1)
        #expect(value["list"]?[1] == nil)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.string("x")["key"] == nil)
    }
}
