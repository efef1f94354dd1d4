import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Names, payloads and plugin tables a careless caller or author brings to dispatch by name: each is
/// refused with the plugin and the item named, the state untouched, and the host keeps serving.
@Suite("Dispatch by name: a hostile corpus")
struct HostileDispatchByNameTests {
    let scratch = ScratchPlugins()

    @Test(arguments: [
        "", ".", "counter", "counter.", ".increment", "counter.increment.extra", "counter..increment", "1", "1.5",
        "counter-x.increment", " counter.increment", "counter.increment ", "COUNTER.INCREMENT", "counter.increment\0",
        "counter.__index", "counter.updaters", "_G.print",
    ])
    func anUnknownNameIsRefusedAtOnceAndNamed(name: String) async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter")])
        let error = try #require(throws: PluginError.self) { try host.dispatch(name) }
        #expect(error.kind == .unknownItem)
        #expect(error.item == name)
        #expect(throws: PluginError.self) { try host.dispatch(name, returning: Int.self) }
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 1)
    }

    @Test func hyphensAndDigitsInItemNamesAreDispatchable() async throws {
        let plugin = try scratch.write(
            "odd-names",
            """
            return {
              name = "odd-names",
              updaters = {
                ["with-hyphen"] = function(state) state.counter = state.counter + 1 end,
                ["2"] = function(state) state.counter = state.counter + 2 end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        try await host.dispatch("odd-names.with-hyphen").value
        try await host.dispatch("odd-names.2").value
        #expect(host.state.counter == 3)
    }

    /// Names the command line and the repl could not address (`plugin.item` with one dot, no spaces or
    /// JSON punctuation) are refused when the plugin loads, not left undispatchable.
    @Test(arguments: [
        (#"updaters = { ["a.b"] = function() end }"#, #"updaters["a.b"] is no item name"#),
        (#"updaters = { [""] = function() end }"#, #"updaters[""] is no item name"#),
        (#"side_effects = { ["add todo"] = function() end }"#, #"side_effects["add todo"] is no item name"#),
        (#"side_effects = { ["{x}"] = function() end }"#, #"side_effects["{x}"] is no item name"#),
        (#"name = "1st""#, "name must be a non-empty name without dots"),
        (#"name = "my plugin""#, "name must be a non-empty name without dots"),
    ])
    func namesNoToolCouldDispatchAreLoadErrors(field: String, saying: String) throws {
        let plugin = try scratch.write(
            "names",
            """
            return {
              name = "names",
              \(field),
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin, shippedPlugin("counter")])
        #expect(host.plugins.map(\.name) == ["counter"])
        let error = try #require(host.loadErrors.first)
        #expect(error.kind == .shape)
        #expect(error.description.contains(saying), "\(error)")
        #expect(error.location?.description == "names/plugin.lua:\(field.hasPrefix("name") ? 2 : 3)", "\(error)")
    }

    @Test func aPayloadOfTheWrongShapeFailsInsideTheUpdaterWithItsLine() async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter")], initialState: AppState(counter: 5))
        // A string or a list payload reads `payload.by` as nil, which the counter takes as 1: not these.
        for payload in [["by": "two"] as JSONValue, 7, ["by": ["nested": true]], ["by": .null, "x": [1]]] {
            let error = try await #require(throws: PluginError.self) { try await host.dispatch("counter.increment", payload).value }
            #expect(error.plugin == "counter", "\(error)")
            #expect(error.item == "counter.increment", "\(error)")
            #expect(error.location?.source == "counter/plugin.lua", "\(error)")
            #expect(host.state.counter == 5)
        }
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 6)
    }

    @Test func aPayloadWithNoLuaFormIsRefusedNamingTheItemAndThePath() async throws {
        struct Huge: Encodable, Sendable { var by = UInt64.max }
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter")])
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("counter.increment", Huge()).value }
        #expect(error.item == "counter.increment", "\(error)")
        #expect(error.description.contains("payload.by"), "\(error)")
        #expect(host.state.counter == 0)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 1)
    }

    @Test func aSwiftItemDispatchedFromLuaWithAWrongPayloadNamesItsPathAndTheLine() async throws {
        let plugin = try scratch.write(
            "caller",
            """
            return {
              name = "caller",
              side_effects = {
                bad = function(ctx, p) ctx.dispatch("app.set", p) end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        try host.register(SetCounter.self, as: "app.set")
        for (payload, says) in [
            (["value": "ten"] as JSONValue, #"payload.value: expected Int, found string "ten""#),
            ([:] as JSONValue, #"payload: required key "value" is missing"#),
            (["value": 1.5] as JSONValue, "payload.value: expected Int, found number 1.5 (not a whole number)"),
            (["value": 1e30] as JSONValue, "(out of range)"),
        ] {
            let error = try await #require(throws: PluginError.self) { try await host.dispatch("caller.bad", payload).value }
            #expect(error.item == "caller.bad", "\(error)")
            #expect(error.location?.description == "caller/plugin.lua:4", "\(error)")
            #expect(error.description.contains(says), "\(error)")
            #expect(host.state.counter == 0)
        }
    }

    @Test(arguments: [
        ("return { print }", "result[1]: expected Int, found function"),
        ("local t = {}; t[1] = t; return t", "result[1]: expected Int, found table"), ("return nil", "found nil"),
        ("return { 1, 2, nil, 4 }", "hole"), ("return 1, 2", "integer 1"),
        ("return { 2^63 }", "result[1]: expected Int, found number 9.223372036854776e+18 (out of range)"),
        ("return { '1' }", #"result[1]: expected Int, found string "1""#),
    ])
    func aSideEffectsResultThatDoesNotDecodeIsAnErrorNamingTheItem(body: String, saying: String) async throws {
        let plugin = try scratch.write(
            "result",
            """
            return {
              name = "result",
              side_effects = { give = function(ctx) \(body) end },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        if saying == "integer 1" {
            // Extra results are ignored: the first is the result.
            #expect(try await host.dispatch("result.give", returning: Int.self).value == 1)
            return
        }
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("result.give", returning: [Int].self).value }
        #expect(error.item == "result.give", "\(error)")
        #expect(error.plugin == "result", "\(error)")
        #expect(error.description.contains(saying), "\(error)")
    }

    /// Values nested past the coders' limit, from an updater, a payload and a side effect's result, are
    /// errors with the item named; the state is kept.
    @Test func valuesNestedPastTheLimitAreErrorsNotCrashes() async throws {
        let plugin = try scratch.write(
            "deep",
            """
            local function nest(levels) local t = {}; for _ = 1, levels do t = { t } end; return t end
            return {
              name = "deep",
              updaters = {
                state = function(state) state.deep = nest(600) end,
                cycle = function(state) state.loop = {}; state.loop.me = state.loop end,
                keep = function(state, p) state.kept = p end,
                fresh_cycle = function(state) local t = { a = 2 }; t.me = t; return t end,
                says_cycle = function(state) state.a = 2; error("the new state contains a table that contains itself (a cycle)", 0) end,
              },
              side_effects = { give = function(ctx) return nest(600) end },
            }
            """)
        let host = try PluginHost<JSONValue>(plugins: [plugin], initialState: ["a": 1])
        // Refused as a state that is invalid, at the updater's line; a plugin raising the same words
        // itself raises its own error.
        for (item, line, kind, says) in [
            ("deep.state", 5, PluginError.Kind.invalidState, "the new state is nested more than 512 levels deep"),
            ("deep.cycle", 6, .invalidState, "the new state contains a table that contains itself (a cycle)"),
            ("deep.fresh_cycle", 8, .invalidState, "the new state contains a table that contains itself (a cycle)"),
            ("deep.says_cycle", 9, .runtime, "the new state contains a table that contains itself (a cycle)"),
        ] {
            let error = try await #require(throws: PluginError.self) { try await host.dispatch(item).value }
            #expect(error.kind == kind, "\(error)")
            #expect(error.plugin == "deep", "\(error)")
            #expect(error.item == item, "\(error)")
            #expect(error.location?.description == "deep/plugin.lua:\(line)", "\(error)")
            #expect(error.message == says, "\(error)")
            #expect(host.state == ["a": 1])
        }
        let result = try await #require(throws: PluginError.self) { try await host.dispatch("deep.give", returning: JSONValue.self).value }
        #expect(result.item == "deep.give", "\(result)")
        #expect(result.description.contains("levels deep"), "\(result)")
        var payload: JSONValue = 1
        for _ in 0..<600 { payload = [payload] }
        let sent = try await #require(throws: PluginError.self) { try await host.dispatch("deep.keep", payload).value }
        #expect(sent.item == "deep.keep", "\(sent)")
        #expect(sent.description.contains("levels deep"), "\(sent)")
        #expect(host.state == ["a": 1])
        try await host.dispatch("deep.keep", ["ok": true]).value
        #expect(host.state == ["a": 1, "kept": ["ok": true]])
    }
}
