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

    static func adding(_ members: [String: JSONValue], to value: JSONValue) -> JSONValue {
        guard case .object(let base) = value else { return value }
        return .object(base.merging(members) { $1 })
    }
}
