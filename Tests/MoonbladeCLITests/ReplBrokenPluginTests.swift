import Foundation
import Testing

/// The repl starts with the plugins that load, reports the one that does not, and loads it once it
/// is fixed: by the watcher, or by the `reload` command.
@Suite("moonblade repl: a broken plugin")
struct ReplBrokenPluginTests {
    let workspace = Workspace()

    @Test func startsWithTheOthersAndReportsTheBrokenOne() async throws {
        try workspace.plugin("step", brokenStepPlugin)
        let outcome = try await workspace.run(
            "repl", shippedPlugin("counter"), "step", "--no-watch", input: "counter.increment\nstep.add\nstate\n")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.hasPrefix("error: plugin step: step/plugin.lua:3: '}' expected near 'end'\n"))
        #expect(outcome.stderr.hasSuffix("error: step.add: no such item is registered\n"))
        #expect(outcome.stdout == "ok\n{\n  \"counter\": 1\n}\n")
    }

    @Test func theWatcherLoadsItOnceItIsFixed() async throws {
        try workspace.plugin("step", brokenStepPlugin)
        let repl = try RunningMoonblade(["repl", shippedPlugin("counter"), "step"], in: workspace.url)
        try await repl.waitUntil("the report") { _, stderr in stderr.contains("step/plugin.lua:3") }
        try workspace.plugin("step", "return {\n  name = \"step\",\n  updaters = { add = function() end end },\n}\n")
        try await repl.waitUntil("the second failure") { _, stderr in
            stderr.contains("error: step still does not load: step/plugin.lua:3:")
        }
        try workspace.plugin("step", stepPlugin(version: 1, factor: 10))
        try await repl.waitUntil("the load") { _, stderr in stderr.contains("loaded step (version 1)\n") }
        try repl.send(#"step.add {"by": 2}"#)
        try await repl.waitUntil("the dispatch") { stdout, _ in stdout.contains("ok\n") }
        // Loaded, it now reloads like any other.
        try workspace.plugin("step", stepPlugin(version: 1, factor: 100))
        try await repl.waitUntil("the reload") { _, stderr in stderr.contains("reloaded step (version 1)\n") }
        try repl.send(#"step.add {"by": 1}"#)
        try repl.send("state")
        let outcome = try await repl.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("{\n  \"total\": 120\n}\n"))
    }

    @Test func theReloadCommandTriesItAgain() async throws {
        try workspace.plugin("step", brokenStepPlugin)
        let repl = try RunningMoonblade(["repl", shippedPlugin("counter"), "step", "--no-watch"], in: workspace.url)
        try repl.send("reload")
        try await repl.waitUntil("the failed load") { _, stderr in stderr.contains("still does not load") }
        try workspace.plugin("step", stepPlugin(version: 1, factor: 1))
        try repl.send("reload")
        try repl.send(#"step.add {"by": 4}"#)
        try repl.send("state")
        let outcome = try await repl.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("loaded step (version 1)\n"))
        #expect(outcome.stdout.hasSuffix("{\n  \"total\": 4\n}\n"))
    }
}
