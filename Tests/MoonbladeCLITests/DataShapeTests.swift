import Foundation
import MoonbladeHost
import Testing

/// The dynamic state keeps its shape through `run` and `--save`: empty objects stay objects, and what
/// JSON cannot hold fails the dispatch before anything is saved.
@Suite("moonblade run: the state's shape")
struct DataShapeTests {
    let workspace = Workspace()

    static let plugin = """
        return {
          name = "shape",
          updaters = {
            touch = function(state) state.n = (state.n or 0) + 1 end,
            make = function(state) state.made = { list = moonblade.array(), record = moonblade.object() } end,
            nan = function(state) state.stats = { ratio = 0/0 } end,
            inf = function(state) state.items[1].price = math.huge end,
            number = function() return 7 end,
            text = function() return "done" end,
          },
        }
        """

    static let initial = #"{"items": [{"price": 1, "tags": []}], "meta": {}, "nested": {"a": {}, "b": [[], {}]}}"#

    @Test func emptyObjectsAndArraysSurviveADispatchAndASaveAndTheNextRun() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file("state.json", Self.initial)
        let first = try await workspace.run(
            "run", shape, "--state", "state.json", "--dispatch", "shape.touch", "--dispatch", "shape.make",
            "--save", "saved.json")
        #expect(first.status == 0, "\(first.stderr)")
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(try workspace.read("saved.json").utf8))
        #expect(saved["meta"] == .object([:]))
        #expect(saved["nested"] == ["a": .object([:]), "b": [.array([]), .object([:])]])
        #expect(saved["items"] == [["price": 1, "tags": .array([])]])
        #expect(saved["made"] == ["list": .array([]), "record": .object([:])])
        #expect(try workspace.read("saved.json").contains("\"meta\": {}"))

        let second = try await workspace.run("run", shape, "--state", "saved.json", "--dispatch", "shape.touch")
        #expect(second.status == 0, "\(second.stderr)")
        var expected = saved
        if case .object(var members) = expected {
            members["n"] = 2
            expected = .object(members)
        }
        #expect(try second.json() == expected)
    }

    @Test(arguments: [
        ("shape.nan", "state.stats.ratio: JSON has no NaN"),
        ("shape.inf", "state.items[1].price: JSON has no infinity"),
        ("shape.number", "returned a number"),
        ("shape.text", "returned a string"),
    ])
    func whatJSONCannotHoldFailsTheDispatchAndNothingIsSaved(_ item: String, _ says: String) async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        try workspace.file("state.json", Self.initial)
        try workspace.file("saved.json", "earlier\n")
        let outcome = try await workspace.run(
            "run", shape, "--state", "state.json", "--dispatch", item, "--save", "saved.json")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.hasPrefix("error: \(item): shape/plugin.lua:"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(says), "\(outcome.stderr)")
        #expect(try workspace.read("saved.json") == "earlier\n")
    }

    @Test func aFailingLineInWatchLeavesTheStateItWasAndTheSaveIsReadable() async throws {
        let shape = try workspace.plugin("shape", Self.plugin)
        let outcome = try await workspace.run(
            "run", shape, "--watch", "--save", "saved.json", input: "shape.touch\nshape.nan\nshape.number\nshape.touch\n")
        #expect(outcome.status == 0)
        #expect(try workspace.read("saved.json") == "{\n  \"n\": 2\n}\n")
        let next = try await workspace.run("run", shape, "--state", "saved.json")
        #expect(next.status == 0)
    }
}
