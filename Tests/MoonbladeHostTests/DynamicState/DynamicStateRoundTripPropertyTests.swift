import Foundation
import MoonbladeHost
import PropertyBased
import Testing

/// A random JSON document, built from a list of steps so the property library can shrink it: each
/// step picks a kind, and the next steps fill it in, from pools of the values most likely to change
/// shape on the way (integers at the edges of 53 and 64 bits, floats with integral values, `-0.0`,
/// keys that look like numbers or Lua names, empty containers, nulls).
private struct JSONRecipe: CustomStringConvertible {
    var steps: [Int]

    static let integers: [Int64] = [0, -1, 1, .max, .min, 9_007_199_254_740_993, -9_007_199_254_740_993, 42]
    static let floats: [Double] = [1.0, -0.0, 0.0, 0.5, 1e300, 5e-324, 9_007_199_254_740_992, -1.5e-10, 1e16, 100]
    static let strings = ["", "a", "1", "-0", "1.0", "é😀", "\u{0}", "a.b", "[1]", "\"\\/", "null", "__index", "n"]

    var description: String { value.jsonString() }

    var value: JSONValue {
        var rest = steps[...]
        return Self.build(&rest, depth: 0)
    }

    private static func next(_ rest: inout ArraySlice<Int>) -> Int { rest.popFirst() ?? 0 }

    private static func build(_ rest: inout ArraySlice<Int>, depth: Int) -> JSONValue {
        let step = next(&rest)
        switch depth < 6 ? step % 8 : step % 5 {
        case 0: return .null
        case 1: return .bool(step % 2 == 0)
        case 2: return .integer(integers[next(&rest) % integers.count])
        case 3: return .double(floats[next(&rest) % floats.count])
        case 4: return .string(strings[next(&rest) % strings.count])
        case 5, 6:
            let count = next(&rest) % 4
            return .array((0..<count).map { _ in build(&rest, depth: depth + 1) })
        default:
            let count = next(&rest) % 4
            var members: [String: JSONValue] = [:]
            for _ in 0..<count {
                members[strings[next(&rest) % strings.count]] = build(&rest, depth: depth + 1)
            }
            return .object(members)
        }
    }

    static let gen = Gen.int(in: 0...99).array(of: 1...60).map { JSONRecipe(steps: $0) }
}

/// Any JSON document keeps its shape through the dynamic state: into Lua as the state and as a
/// payload, copied there (within the state's draft, and by plain Lua code from the payload), back to Swift, out as JSON text and read again: the same value, number kinds, key sets,
/// empty containers and nulls included.
@Suite("The dynamic state: property-based round trips of JSON documents")
struct DynamicStateRoundTripPropertyTests {
    let scratch = ScratchPlugins()

    @Test func aDocumentComesBackFromLuaAndFromItsTextAsItWent() async throws {
        let folder = try scratch.write(
            "copy",
            """
            \(luaDeepCopyKeepingKinds)
            return {
              name = "copy",
              updaters = {
                copy = function(state) state.copy = state.doc end,
                payload = function(state, p) state.payload = deep_copy(p) end,
              },
            }
            """)
        await propertyCheck(count: 150, input: JSONRecipe.gen) { recipe in
            let document = recipe.value
            let host = try PluginHost<JSONValue>(plugins: [folder], initialState: ["doc": document])
            try await host.dispatch("copy.copy").value
            try await host.dispatch("copy.payload", document).value
            let state = host.state
            #expect(state["copy"]?.jsonString() == document.jsonString())
            // A null payload on its own is Lua's nil, so the key is absent: null all the same.
            #expect((state["payload"] ?? .null).jsonString() == document.jsonString())
            #expect(state["doc"]?.jsonString() == document.jsonString())
            let text = state.jsonString(pretty: true)
            let reread = try JSONValue(json: text)
            #expect(reread == state)
            #expect(reread.jsonString() == state.jsonString())
        }
    }

    @Test func luaSeesJSONNullAsMoonbladeNullAndFloatsAsFloats() async throws {
        let folder = try scratch.write(
            "look",
            """
            return {
              name = "look",
              updaters = {
                look = function(state)
                  state.seen = {
                    null_member = state.doc.member == moonblade.null,
                    null_item = state.doc.list[2] == moonblade.null,
                    length = #state.doc.list,
                    one = math.type(state.doc.one),
                    zero = tostring(state.doc.zero),
                    int = math.type(state.doc.int),
                  }
                  state.doc.list[3] = moonblade.null
                  state.doc.member = nil
                end,
              },
            }
            """)
        let document = try JSONValue(json: #"{"member": null, "list": [1, null], "one": 1.0, "zero": -0.0, "int": 1}"#)
        let host = try PluginHost<JSONValue>(plugins: [folder], initialState: ["doc": document])
        try await host.dispatch("look.look").value
        #expect(
            host.state["seen"]
                == ["null_member": true, "null_item": true, "length": 2, "one": "float", "zero": "-0.0", "int": "integer"])
        #expect(host.state["doc"]?.jsonString() == #"{"int":1,"list":[1,null,null],"one":1.0,"zero":-0.0}"#)
    }

    @Test func aValueJSONCannotHoldIsRefusedWithItsPathAndTheStateIsKept() async throws {
        let folder = try scratch.write(
            "odd",
            """
            return {
              name = "odd",
              updaters = {
                fn = function(state) state.x = { print } end,
                co = function(state) state.x = { y = coroutine.create(print) } end,
                bytes = function(state) state.x = { "ok", "\\xff\\xfe" } end,
                key = function(state) state.x = { ok = { ["\\xff"] = 1 } } end,
                added_key = function(state) state.keep_obj["\\xc3("] = 1 end,
              },
            }
            """)
        let initial: JSONValue = ["keep": 1.5, "keep_obj": ["a": 1]]
        let host = try PluginHost<JSONValue>(plugins: [folder], initialState: initial)
        for (item, says) in [
            ("odd.key", "state.x.ok: expected a table with string keys, found key \"\u{FFFD}\" (not valid UTF-8)"),
            ("odd.added_key", "state.keep_obj: expected a table with string keys, found key \"\u{FFFD}(\" (not valid UTF-8)"),
            ("odd.fn", "state.x[1]: JSON has no function"),
            ("odd.co", "state.x.y: JSON has no coroutine"),
            ("odd.bytes", "state.x[2]: expected String, found a string that is not valid UTF-8"),
        ] {
            await #expect { try await host.dispatch(item).value } throws: { error in
                "\(error)".contains(says) && "\(error)".contains("odd/plugin.lua:")
            }
            #expect(host.state == initial)
        }
    }
}
