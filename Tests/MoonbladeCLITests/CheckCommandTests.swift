import Foundation
import Testing

@Suite("moonblade check")
struct CheckCommandTests {
    let workspace = Workspace()

    @Test func printsEachPluginThatLoadsWithItsVersion() async throws {
        let outcome = try await workspace.run(
            "check", shippedPlugin("counter"), shippedPlugin("todo"), shippedPlugin("cart"))
        #expect(outcome.stderr == "")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "ok counter 1\nok todo 1\nok cart 1\n")
    }

    @Test func reportsEveryProblemWithItsPlaceAndExits3() async throws {
        let syntax = try workspace.plugin(
            "syntax",
            "return {\n  name = \"syntax\",\n  updaters = { add = function(state) state.x = end },\n}\n")
        let typo = try workspace.plugin("typo", "return {\n  name = \"typo\",\n  updater = {},\n}\n")
        let outcome = try await workspace.run("check", syntax, shippedPlugin("counter"), typo)
        #expect(outcome.status == 3)
        #expect(outcome.stdout == "ok counter 1\n")
        let problems = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(problems.count == 2)
        #expect(
            problems.first?.hasPrefix(
                "error: plugin syntax: syntax/plugin.lua:3: unexpected symbol near 'end'") == true)
        #expect(
            problems.last?.hasPrefix("error: plugin typo: typo/plugin.lua:3: unknown field 'updater'") == true
        )
    }

    @Test func runsNoItem() async throws {
        // An item that prints if it runs, and a rule that would run it as the store starts: check loads
        // the plugin and leaves both alone.
        let plugin = try workspace.plugin(
            "quiet",
            """
            return {
              name = "quiet",
              side_effects = { shout = function(ctx) print("ran") end },
              observers = { { on_start = { "quiet.shout" } } },
            }
            """)
        let outcome = try await workspace.run("check", plugin)
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "ok quiet 1\n")
        #expect(outcome.stderr == "")
    }
}
