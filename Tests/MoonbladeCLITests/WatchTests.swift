import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --watch")
struct WatchTests {
    let workspace = Workspace()

    @Test func appliesOneDispatchPerLineReportingFailuresWithoutStopping() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let input = """
            tally.add
            tally.fail

            tally.add {"by": 10}
            tally.report
            not json at all
            tally.add
            """
        let outcome = try await workspace.run(
            "run", tally, "--dispatch", "tally.add", "--watch", input: input + "\n")
        #expect(outcome.status == 0)
        #expect(
            outcome.stderr == """
                error: tally.fail: tally/plugin.lua:5: tally refuses
                error: expected an item name (plugin.item), found "not"; items: tally.add, tally.fail, tally.report\n
                """)
        let lines = outcome.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        try #require(lines.count >= 2)
        #expect(lines[0] == #"{"total":12}"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(lines[1].utf8)) == ["total": 13])
    }

    @Test func printStatePrintsTheStateAfterEachLine() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--watch", "--print-state", "--save", "state.json",
            input: "counter.increment\ncounter.increment {\"by\": 2}\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("{\"counter\":1}\n{\"counter\":3}\n{\n  \"counter\": 3\n}"))
        #expect(try workspace.read("state.json") == "{\n  \"counter\": 3\n}\n")
    }

    @Test func reloadsAnEditedPluginAndKeepsTheOldCodeWhenAnEditIsBroken() async throws {
        try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        let run = try RunningMoonblade(["run", "step", "--watch", "--print-state"], in: workspace.url)
        try run.send(#"step.add {"by": 1}"#)
        try await run.waitUntil("the first state") { stdout, _ in stdout == "{\"total\":1}\n" }

        try workspace.plugin("step", stepPlugin(version: 2, factor: 10))
        try await run.waitUntil("the reload") { _, stderr in stderr.contains("reloaded step (version 2)\n") }
        try run.send(#"step.add {"by": 1}"#)
        try await run.waitUntil("the state after the reload") { stdout, _ in stdout.hasSuffix("\"total\":11}\n") }

        try workspace.plugin("step", brokenStepPlugin)
        try await run.waitUntil("the failed reload") { _, stderr in stderr.contains("reload of step failed") }
        try run.send(#"step.add {"by": 1}"#)
        let outcome = try await run.finish()
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                {"total":1}
                {"migrated_from":1,"total":11}
                {"migrated_from":1,"total":21}
                {
                  "migrated_from": 1,
                  "total": 21
                }\n
                """)
        #expect(
            outcome.stderr == """
                migrated step from version 1 to 2
                reloaded step (version 2)
                \(brokenStepReloadError)\n
                """)
    }
}
