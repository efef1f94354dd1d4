import Foundation
import Moonblade
import MoonbladeHost
import PropertyBased
import Testing

/// One random change of the JSON state below, as Lua code; `p` is a position, `s` a key or string.
private struct JSONMutation: CustomStringConvertible {
    var kind: Int, p: Int, s: String, n: Int

    var description: String {
        switch kind {
        case 0: "state.n = state.n + \(n)"
        case 1: "table.insert(state.list, \"\(s)\")"
        case 2: "if #state.list >= \(p) then table.remove(state.list, \(p)) end"
        case 3: "if #state.list >= \(p) then table.insert(state.list, \(p), \(n)) end"
        case 4: "state.obj[\"\(s)\"] = \(n)"
        case 5: "state.obj[\"\(s)\"] = nil"
        case 6: "state.obj.inner = { x = { \(n) } }"
        case 7: "if type(state.obj.inner) == \"table\" then table.insert(state.obj.inner.x, \(n)) end"
        case 8: "for k in pairs(state.obj) do state.obj[k] = nil end"  // an emptied object stays one
        case 9: "state.empty_o[\"\(s)\"] = \"\(s)\""
        case 10: "state.empty_o = moonblade.object()"
        case 11: "state.empty_a = moonblade.array()"
        case 12: "state.list = {}"
        case 13: "while #state.list > 0 do table.remove(state.list) end"
        case 14: "state.list[#state.list + 1.0] = \(n)"
        case 15: "state.obj[\"\(s)\"] = state.list"  // one table at two keys
        case 16: "state.obj[\"\(s)\"] = 0/0"  // JSON has no NaN: fails on both sides
        case 17: "state.list[\"\(s)\"] = 1"  // an array with a name: fails unless it was empty
        // A hole unless it was the only item. The updater ends there: a length read across a hole is
        // any border Lua picks (0 or the end), which a draft and a plain copy need not pick alike.
        case 18: "if #state.list >= 1 then state.list[1] = nil return end"
        case 19: "if state.n > 5 then error(\"halfway\") end"
        case 20: "do return { n = state.n, list = state.list, obj = state.obj } end"
        case 21: "table.sort(state.list, function(a, b) return tostring(a) < tostring(b) end)"
        case 22: "state.obj[\"\(s)\"] = { state.obj.inner, { \(n) } }"
        case 23: "state[\"\(s)\"] = state.n"
        case 24: "state[\"\(s)\"] = nil"
        case 25: "if #state.list >= \(p) then state.list[\(p).0] = \"\(s)\" end"
        case 26: "pcall(function() state.n = state.n + 1; state.obj[\"\(s)\"] = true; error(\"caught\") end)"
        default: "for k, v in pairs(state.obj) do if type(v) == \"number\" then state.obj[k] = v + 1 end end"
        }
    }

    static let gen = zip(
        Gen.int(in: 0...27), Gen.int(in: 1...4), Gen.element(of: ["a", "b", "c", "inner"]).map { $0! }, Gen.int(in: 0...9)
    ).map { JSONMutation(kind: $0, p: $1, s: $2, n: $3) }
}

/// The JSON dynamic state the CLI uses, changed by random updaters on drafts (dispatched by name)
/// and by the same code on plain deep copies of the state (a side effect given the state as its
/// payload): both must end in the same `JSONValue`, shapes and all, and a failure changes nothing.
@Suite("The dynamic state: property-based drafts against plain copies")
struct DynamicStateDraftPropertyTests {
    let scratch = ScratchPlugins()

    @Test func draftsOfTheDynamicStateEndWhereTheSameCodeOnAPlainCopyEnds() async throws {
        let folder = try scratch.write(
            "random",
            """
            \(luaDeepCopyKeepingKinds)
            return {
              name = "random",
              updaters = {
                run = function(state, p) return load("local state = ...\\n" .. p.source, "=u", "t")(state) end,
              },
              side_effects = {
                plain = function(ctx, p)
                  local copy = deep_copy(p.state)
                  return load("local state = ...\\n" .. p.source, "=u", "t")(copy) or copy
                end,
              },
            }
            """)
        let initial: JSONValue = [
            "n": 0, "list": ["a", "b"], "obj": ["k": "v", "inner": ["x": [1, 2]]], "empty_o": [:], "empty_a": [],
        ]
        let dispatches = JSONMutation.gen.array(of: 1...5).array(of: 1...8)
        await propertyCheck(count: 60, input: dispatches) { dispatches in
            let host = try PluginHost<JSONValue>(plugins: [folder], initialState: initial)
            for (number, mutations) in dispatches.enumerated() {
                let source = mutations.map(\.description).joined(separator: "\n")
                let before = host.state
                let plain = try? await host.dispatch(
                    "random.plain", PlainRun(state: before, source: source), returning: JSONValue.self
                ).value
                let drafted: Void? = try? await host.dispatch("random.run", ["source": source]).value
                #expect((drafted != nil) == (plain != nil), "dispatch \(number):\n\(source)")
                #expect(host.state == (plain ?? before), "dispatch \(number):\n\(source)")
            }
        }
    }
}

private struct PlainRun: Encodable, Sendable {
    var state: JSONValue
    var source: String
}
