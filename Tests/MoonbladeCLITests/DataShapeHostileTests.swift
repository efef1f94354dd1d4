import Foundation
import MoonbladeHost
import Testing

/// Shapes that used to change on their way through the command line, each through the real binary:
/// a state emptied by `return {}`, floats and nulls through the journal and the specs it writes,
/// negative numbers as payloads.
@Suite("moonblade: hostile data shapes")
struct DataShapeHostileCLITests {
    let workspace = Workspace()

    static let plugin = """
        return {
          name = "shape",
          updaters = {
            wipe = function() return {} end,
            set = function(state, p) state.value = p end,
            put = function(state, p) state[p.key] = p.value end,
          },
        }
        """

    /// Floats that are whole numbers, a negative zero, an integer past 2^53, nulls and empty tables.
    static let kinds = #"{"e": {}, "l": [1, null, 2.0], "n": null, "neg": -0.0, "one": 1.0, "big": 9007199254740993, "zero": 0.0}"#

    @Test func aStateEmptiedByReturningAPlainTableIsSavedAsAnObjectTheNextRunReads() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file("state.json", #"{"n": 1}"#)
        let first = try await workspace.run("run", shape, "--state", "state.json", "--dispatch", "shape.wipe", "--save", "saved.json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try workspace.read("saved.json") == "{}\n")
        let next = try await workspace.run("run", shape, "--state", "saved.json")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout == "{}\n")
    }

    /// Recovery and `goto` read the journal's JSON as the state it was: `1.0` stays a float (Foundation's
    /// decoder would make it the integer 1), `-0.0` keeps its sign.
    @Test func aStateRecoveredFromTheJournalOrReachedByGotoKeepsItsNumberKinds() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file("state.json", Self.kinds)
        let expected = try JSONValue(json: Self.kinds)
        let first = try await workspace.run(
            "run", shape, "--state", "state.json", "--journal", "app.journal", "--dispatch", "shape.set", "1")
        #expect(first.status == 0, "\(first.stderr)")
        let recovered = try await workspace.run("run", shape, "--journal", "app.journal", "--dispatch", "shape.set", "2.5")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try JSONValue(json: recovered.stdout).jsonString() == Self.adding(["value": 2.5], to: expected).jsonString())

        let repl = try await workspace.run("repl", shape, "--journal", "app.journal", input: "goto 1\nstate\n")
        #expect(repl.status == 0, "\(repl.stderr)")
        #expect(repl.stdout.contains(Self.adding(["value": 1], to: expected).jsonString(pretty: true)), "\(repl.stdout)")
    }

    /// A spec written from a recording sets and asserts the recorded states: JSON's null is
    /// `moonblade.null` there (`nil` would make a hole in a list and drop a key), an empty object
    /// `moonblade.object()`.
    @Test func aSpecWrittenFromAJournalWithNullsAndEmptyObjectsPasses() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file("state.json", Self.kinds)
        let recorded = try await workspace.run(
            "run", shape, "--state", "state.json", "--journal", "app.journal",
            "--dispatch", "shape.put", #"{"key": "list", "value": [null, {}, []]}"#,
            "--dispatch", "shape.put", #"{"key": "record", "value": {"a": null, "b": {}}}"#)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let written = try await workspace.run(
            "journal", "to-spec", "app.journal", "--plugin", "shape", "--output", "shape/spec/recorded_spec.lua")
        #expect(written.status == 0, "\(written.stderr)")
        let spec = try workspace.read("shape/spec/recorded_spec.lua")
        #expect(spec.contains("l = { 1, moonblade.null, 2.0 }"), "\(spec)")
        #expect(spec.contains("e = moonblade.object()"), "\(spec)")
        let tested = try await workspace.run("test", shape)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("1 passed, 0 failed"), "\(tested.stdout)")
    }

    /// A negative number is a JSON payload like any other, not an option the parser does not know.
    @Test func aNegativeNumberIsAPayloadOnTheCommandLine() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        let outcome = try await workspace.run(
            "run", shape, "--dispatch", "shape.set", "-1", "--dispatch", "shape.put", #"{"key": "n", "value": 1}"#,
            "--dispatch", "shape.set", "-0.5e1", "--post", "app.tick", "-2")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try JSONValue(json: outcome.stdout) == ["n": 1, "value": -5.0])
        let bad = try await workspace.run("run", shape, "--dispatch", "shape.set", "-01")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("the payload of shape.set is not valid JSON (-01): line 1, column 3: expected"), "\(bad.stderr)")
        let option = try await workspace.run("run", shape, "--dispatch", "shape.set", "-x")
        #expect(option.status == 64)
        #expect(option.stderr.contains("Unknown option '-x'"), "\(option.stderr)")
    }

    /// `set_state({})` in a spec starts from an empty object, as `run` does: the plain `{}` read as an
    /// empty array, which an updater writing a field then could not turn into an object.
    @Test func aSpecThatSetsAPlainEmptyStateStartsFromAnObject() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file(
            "shape/spec/empty_spec.lua",
            """
            describe("an empty state", function()
              it("is an object a dispatch writes a field of", function()
                set_state({})
                dispatch("shape.set", 1)
                assert.are.same({ value = 1 }, state())
              end)
            end)
            """)
        let tested = try await workspace.run("test", shape)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("1 passed, 0 failed"), "\(tested.stdout)")
    }

    /// A table Lua hands on (a `ctx.dispatch` payload, a result another plugin awaits) nested thousands of
    /// levels deep is refused like a state nested too deep: reading it recursed until the host crashed.
    @Test func aPayloadLuaNestsThousandsOfLevelsDeepIsRefusedAndTheRunGoesOn() async throws {
        let deep = try workspace.plugin(
            "deep",
            """
            local function nest(levels)
              local root = {}
              local t = root
              for _ = 2, levels do t.a = {}; t = t.a end
              return root
            end
            return {
              name = "deep",
              updaters = { set = function(state, p) state.kind = type(p) end },
              side_effects = {
                relay = function(ctx, p) ctx.dispatch("deep.set", nest(p)) end,
                make = function(ctx, p) return nest(p) end,
                await = function(ctx, p) ctx.dispatch("deep.make", p) end,
              },
            }
            """)
        let outcome = try await workspace.run(
            "run", deep, "--watch", input: "deep.relay 20000\ndeep.await 20000\ndeep.relay 512\n")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(outcome.stderr)")
        for line in lines {
            #expect(line.hasPrefix("error: deep."), "\(line)")
            #expect(line.contains("deep/plugin.lua:"), "\(line)")
            #expect(line.hasSuffix("a table nested more than 512 levels deep has no data form"), "\(line)")
        }
        #expect(try JSONValue(json: outcome.stdout) == ["kind": "table"])
    }

    /// A payload Lua dispatched that JSON cannot hold is journaled with the reason: it said "a table
    /// mixes string keys with integer(3) keys" of a sparse list, which has no string key.
    @Test func aJournaledPayloadWithNoJSONFormSaysWhy() async throws {
        let odd = try workspace.plugin(
            "odd",
            """
            return {
              name = "odd",
              updaters = { set = function(state, p) state.n = 1 end },
              side_effects = {
                sparse = function(ctx) ctx.dispatch("odd.set", { [1] = 1, [3] = 3 }) end,
                mixed = function(ctx) ctx.dispatch("odd.set", { 1, 2, x = 3 }) end,
                float = function(ctx) ctx.dispatch("odd.set", { [1.5] = 1 }) end,
              },
            }
            """)
        let outcome = try await workspace.run("repl", odd, input: "odd.sparse\nodd.mixed\nodd.float\nhistory\n")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for reason in [
            "a list with a hole at [2]", #"a table with both [1] and the key \"x\""#,
            "a table with the key [1.5] (JSON has string keys, or positions 1…n)",
        ] {
            #expect(outcome.stdout.contains("odd.set \"(no JSON form: \(reason))\""), "\(reason)\n\(outcome.stdout)")
        }
    }

    static func adding(_ members: [String: JSONValue], to value: JSONValue) -> JSONValue {
        guard case .object(let base) = value else { return value }
        return .object(base.merging(members) { $1 })
    }
}
