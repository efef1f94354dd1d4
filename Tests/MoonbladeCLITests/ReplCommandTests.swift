import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade repl")
struct ReplCommandTests {
    let workspace = Workspace()

    @Test func runsCommandsFromPipedInputAndSurvivesErrors() async throws {
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
        let outcome = try await workspace.run("repl", tally, input: input + "\n")
        #expect(outcome.status == 0)
        #expect(
            outcome.stderr == """
                error: tally.fail: tally/plugin.lua:5: tally refuses
                error: nope.item: no such item is registered
                error: dispatch needs an item name: dispatch NAME [JSON]\n
                """)
        #expect(outcome.stdout == "ok\nok\n{\"total\":3}\n{\n  \"total\": 3\n}\n")
    }

    @Test func aSideEffectPrintsItsResultOrOk() async throws {
        let answers = try workspace.plugin(
            "answers",
            """
            return { name = "answers", side_effects = {
              nothing = function(ctx) end,
              answer = function(ctx) return 42 end,
            } }
            """)
        let outcome = try await workspace.run("repl", answers, input: "answers.nothing\nanswers.answer\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "ok\n42\n")
    }

    @Test func failingOnStartRulesAreReported() async throws {
        // The first rule's item fails once it runs; the second rule fails as the store starts.
        try workspace.plugin(
            "boot",
            """
            return {
              name = "boot",
              updaters = { fail = function(state) error("no data") end },
              observers = {
                { on_start = { "boot.fail" } },
                { on_start = { { "boot.fail", function() error("no payload") end } } },
              },
            }
            """)
        let repl = try RunningMoonblade(["repl", "boot", "--no-watch"], in: workspace.url)
        try await repl.waitUntil("both errors") { _, stderr in
            stderr.contains("error moonblade.host: boot.fail, dispatched by ")
                && stderr.contains("boot/plugin.lua:3: no data")
                && stderr.contains("boot/plugin.lua:6: dispatching boot.fail: no payload")
        }
        #expect(try await repl.finish().status == 0)
    }

    @Test func helpListsTheCommandsAndItems() async throws {
        let outcome = try await workspace.run("repl", shippedPlugin("counter"), input: "help\n")
        #expect(outcome.status == 0)
        for text in [
            "dispatch NAME [JSON]", "state", "reload", "quit", "items: counter.increment counter.reset",
        ] {
            #expect(outcome.stdout.contains(text))
        }
    }

    @Test func reloadCommandSwapsInTheEditedCodeAndKeepsTheOldOneWhenTheEditIsBroken() async throws {
        let repl = try await replWithVersion2Waiting()
        try repl.send("reload")
        try repl.send(#"step.add {"by": 1}"#)
        try repl.send("state")
        try await repl.waitUntil("the state after the reload") { stdout, _ in stdout.hasSuffix("}\n") }

        try workspace.plugin("step", brokenStepPlugin)
        try repl.send("reload")
        try repl.send(#"step.add {"by": 1}"#)
        let outcome = try await repl.finish()
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
        #expect(outcome.stderr == brokenStepReloadError + "\n")
    }

    /// `goto` an entry recorded before a reload migrated the state: the state it brings back is
    /// migrated too (`migrated_from`), so version 2 goes on from a state it can read.
    @Test func gotoAcrossAReloadMigratesTheStateItBringsBack() async throws {
        let repl = try await replWithVersion2Waiting()
        for line in ["reload", #"step.add {"by": 1}"#, "goto 1", #"step.add {"by": 2}"#, "state"] {
            try repl.send(line)
        }
        let outcome = try await repl.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("at 1\nok\n{\n  \"migrated_from\": 1,\n  \"total\": 21\n}\n"), "\(outcome.stdout)")
        // Logged by the host (the reload's own migration is an event, printed on standard output).
        #expect(outcome.stderr.contains("info moonblade.host: migrated a recorded state of plugin step from version 1 to 2"))
    }

    /// A repl without a watcher on version 1 of `step` that has applied `step.add {"by": 1}` (entry
    /// 1), with version 2 (whose `migrate` sets `migrated_from`) written for a `reload`.
    private func replWithVersion2Waiting() async throws -> RunningMoonblade {
        try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        let repl = try RunningMoonblade(["repl", "step", "--no-watch"], in: workspace.url)
        try repl.send(#"step.add {"by": 1}"#)
        try await repl.waitUntil("ok after the first dispatch") { stdout, _ in stdout == "ok\n" }
        try workspace.plugin("step", stepPlugin(version: 2, factor: 10))
        return repl
    }

    @Test func pluginsReloadByThemselvesAndTheReloadCommandIsReportedOnce() async throws {
        try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        let repl = try RunningMoonblade(["repl", "step"], in: workspace.url)
        try repl.send("help")
        try await repl.waitUntil("the help") { stdout, _ in stdout.contains("items: step.add") }

        try workspace.plugin("step", stepPlugin(version: 1, factor: 5))
        try await repl.waitUntil("the reload on standard error") { _, stderr in stderr == "reloaded step (version 1)\n" }
        try repl.send(#"step.add {"by": 1}"#)
        try repl.send("reload")
        try repl.send("state")
        let outcome = try await repl.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("ok\nreloaded step (version 1)\n{\n  \"total\": 5\n}\n"))
        #expect(outcome.stderr == "reloaded step (version 1)\n")
    }

    @Test func aMissingFolderExits4() async throws {
        let outcome = try await workspace.run("repl", "no-such-plugin", input: "state\n")
        #expect(outcome.status == 4)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "error: no such folder: no-such-plugin\n")
    }
}
