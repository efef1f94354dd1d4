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

    @Test func reloadSaysItIsNotAvailableYetAndTheSessionGoesOn() throws {
        let outcome = try workspace.run(
            "repl", shippedPlugin("counter"), input: "reload\ncounter.increment\nstate\n")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("reload: not available yet"))
        #expect(outcome.stdout == "ok\n{\n  \"counter\": 1\n}\n")
    }

    @Test func aPluginThatDoesNotLoadExits3() throws {
        let outcome = try workspace.run("repl", "no-such-plugin", input: "state\n")
        #expect(outcome.status == 3)
        #expect(outcome.stdout == "")
    }
}
