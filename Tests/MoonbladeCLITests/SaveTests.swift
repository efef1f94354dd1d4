import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --save")
struct SaveTests {
    let workspace = Workspace()

    @Test func savesTheFinalStateInsteadOfPrintingIt() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--dispatch", "counter.increment", "--save", "state.json")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "")
        #expect(try workspace.read("state.json") == "{\n  \"counter\": 1\n}\n")
        #expect(try workspace.contents() == ["state.json"])
    }

    @Test func printStatePrintsItToo() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--dispatch", "counter.increment", "--save", "state.json",
            "--print-state")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == (try workspace.read("state.json")))
    }

    @Test func aSavedStateIsTheNextRunsStartingState() async throws {
        _ = try await workspace.run(
            "run", shippedPlugin("counter"), "--dispatch", "counter.increment", "--save", "state.json")
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--state", "state.json", "--dispatch", "counter.increment",
            "--save", "state.json")
        #expect(outcome.status == 0)
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data(workspace.read("state.json").utf8)) == [
                "counter": 2
            ])
    }

    @Test func aFailedRunLeavesTheEarlierFileAsItWas() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        try workspace.file("state.json", "earlier")
        let outcome = try await workspace.run(
            "run", tally, "--dispatch", "tally.add", "--dispatch", "tally.fail", "--save", "state.json")
        #expect(outcome.status == 1)
        #expect(try workspace.read("state.json") == "earlier")
    }

    @Test func aSaveOverAFolderExits4BeforeTheSessionDoesAnyWork() async throws {
        // Checked at the start: a watching session must not end with its work unsavable.
        try workspace.file("state.json/earlier", "earlier")
        let outcome = try await workspace.run(
            ["run", shippedPlugin("counter"), "--watch", "--print-state", "--save", "state.json"],
            input: "counter.increment\n")
        #expect(outcome.status == 4)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "error: cannot save the state to state.json: it is a folder\n")
        #expect(try workspace.contents() == ["state.json"])
        #expect(try workspace.read("state.json/earlier") == "earlier")
    }

    @Test func aSaveIntoAMissingDirectoryExits4() async throws {
        let outcome = try await workspace.run("run", shippedPlugin("counter"), "--save", "missing/state.json")
        #expect(outcome.status == 4)
        #expect(outcome.stderr.contains("missing/state.json"))
        #expect(try workspace.contents() == [])
    }
}
