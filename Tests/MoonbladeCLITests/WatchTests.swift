import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --watch")
struct WatchTests {
    let workspace = Workspace()

    @Test func appliesOneDispatchPerLineReportingFailuresWithoutStopping() throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let input = """
            tally.add
            tally.fail

            tally.add {"by": 10}
            tally.report
            not json at all
            tally.add
            """
        let outcome = try workspace.run(
            "run", tally, "--dispatch", "tally.add", "--watch", input: input + "\n")
        #expect(outcome.status == 0)
        #expect(
            outcome.stderr == """
                error: tally.fail: tally/plugin.lua:5: tally refuses
                error: the payload of not is not valid JSON: json at all\n
                """)
        let lines = outcome.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        #expect(lines.first == #"{"total":12}"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(lines[1].utf8)) == ["total": 13])
    }

    @Test func printStatePrintsTheStateAfterEachLine() throws {
        let outcome = try workspace.run(
            "run", shippedPlugin("counter"), "--watch", "--print-state", "--save", "state.json",
            input: "counter.increment\ncounter.increment {\"by\": 2}\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("{\"counter\":1}\n{\"counter\":3}\n{\n  \"counter\": 3\n}"))
        #expect(try workspace.read("state.json") == "{\n  \"counter\": 3\n}\n")
    }
}
