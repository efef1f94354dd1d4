import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade repl")
struct ReplCommandTests {
    let workspace = Workspace()

    @Test func runsCommandsFromPipedInputAndSurvivesErrors() throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let input = """
            tally.add
            dispatch tally.add {"by": 2}
            tally.fail
            nope.item
            dispatch
            tally.report
            state
            quit
            tally.add
            """
        let outcome = try workspace.run("repl", tally, input: input + "\n")
        #expect(outcome.status == 0)
        #expect(
            outcome.stderr == """
                error: tally.fail: tally/plugin.lua:5: tally refuses
                error: nope.item: no such item is registered
                error: dispatch needs an item name: dispatch NAME [JSON]\n
                """)
        #expect(outcome.stdout == "ok\nok\n{\"total\":3}\n{\n  \"total\": 3\n}\n")
    }

    @Test func helpListsTheCommandsAndItems() throws {
        let outcome = try workspace.run("repl", shippedPlugin("counter"), input: "help\n")
        #expect(outcome.status == 0)
        for text in [
            "dispatch NAME [JSON]", "state", "reload", "quit", "items: counter.increment counter.reset",
        ] {
            #expect(outcome.stdout.contains(text))
        }
    }

    @Test func reloadCommandSwapsInTheEditedCodeAndKeepsTheOldOneWhenTheEditIsBroken() throws {
        let step = try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        let repl = try RunningMoonblade(["repl", "step", "--no-watch"], in: workspace.url)
        try repl.send(#"step.add {"by": 1}"#)
        try repl.waitUntil("ok after the first dispatch") { stdout, _ in stdout == "ok\n" }

        try workspace.plugin("step", stepPlugin(version: 2, factor: 10))
        try repl.send("reload")
        try repl.send(#"step.add {"by": 1}"#)
        try repl.send("state")
        try repl.waitUntil("the state after the reload") { stdout, _ in stdout.hasSuffix("}\n") }

        try Data(brokenStepPlugin.utf8).write(to: URL(fileURLWithPath: "\(step)/plugin.lua"))
        try repl.send("reload")
        try repl.send(#"step.add {"by": 1}"#)
        let outcome = try repl.finish()
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                ok
                migrated step from version 1 to 2
                reloaded step (version 2)
                ok
                {
                  "migrated_from": 1,
                  "total": 11
                }
                ok\n
                """)
        #expect(
            outcome.stderr == """
                error: reload of step failed: step/plugin.lua:3: '}' expected near 'end' \
                (the earlier version keeps running)\n
                """)
    }

    @Test func pluginsReloadByThemselvesAndTheReloadCommandIsReportedOnce() throws {
        let step = try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        let repl = try RunningMoonblade(["repl", "step"], in: workspace.url)
        try repl.send("help")
        try repl.waitUntil("the help") { stdout, _ in stdout.contains("items: step.add") }

        try Data(stepPlugin(version: 1, factor: 5).utf8).write(to: URL(fileURLWithPath: "\(step)/plugin.lua"))
        try repl.waitUntil("the reload on standard error") { _, stderr in stderr == "reloaded step (version 1)\n" }
        try repl.send(#"step.add {"by": 1}"#)
        try repl.send("reload")
        try repl.send("state")
        let outcome = try repl.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("ok\nreloaded step (version 1)\n{\n  \"total\": 5\n}\n"))
        #expect(outcome.stderr == "reloaded step (version 1)\n")
    }

    @Test func aPluginThatDoesNotLoadExits3() throws {
        let outcome = try workspace.run("repl", "no-such-plugin", input: "state\n")
        #expect(outcome.status == 3)
        #expect(outcome.stdout == "")
    }
}
