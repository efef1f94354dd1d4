import Foundation
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// `run --watch` stopped by SIGINT or SIGTERM settles (or abandons) the dispatch in flight, saves and
/// exits 128 + the signal.
@Suite("moonblade run --watch: stopped by a signal")
struct StopSignalTests {
    let workspace = Workspace()

    static let plugin = """
        return {
          name = "slow",
          updaters = {
            add = function(state, p) state.total = (state.total or 0) + (p and p.by or 1) end,
            spin = function(state) for _ = 1, 2e7 do end; state.spun = true end,
          },
          side_effects = {
            busy = function(ctx)
              ctx.deps.log.info("busy")
              ctx.dispatch("slow.spin")
            end,
            forever = function(ctx)
              ctx.deps.log.info("forever")
              while true do ctx.deps.clock.now() end
            end,
          },
        }
        """

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aStopWhileWaitingForInputSavesAndExits(_ number: Int32, _ code: Int32) async throws {
        let slow = try workspace.plugin("slow", Self.plugin)
        let run = try RunningMoonblade(["run", slow, "--watch", "--print-state", "--save", "state.json"], in: workspace.url)
        try run.send(#"slow.add {"by": 2}"#)
        try run.send("slow.add")
        try await run.waitUntil("both lines") { stdout, _ in stdout.contains(#"{"total":3}"#) }
        run.send(signal: number)
        let outcome = try await run.waitForExit()
        #expect(outcome.status == code)
        #expect(try workspace.read("state.json") == "{\n  \"total\": 3\n}\n")
    }

    @Test func aStopDuringTheDispatchItemsLetsTheOneInFlightSettleRunsNoMoreAndSaves() async throws {
        // The first item runs until the test lets it go (a storage key it polls), after the signal.
        let slow = try workspace.plugin(
            "gate",
            """
            return {
              name = "gate",
              updaters = {
                add = function(state) state.total = (state.total or 0) + 1 end,
                passed = function(state) state.passed = true end,
              },
              side_effects = {
                wait = function(ctx)
                  ctx.deps.log.info("waiting")
                  while ctx.deps.storage.read { key = "go" } == nil do end
                  ctx.dispatch("gate.passed")
                end,
              },
            }
            """)
        let adds = Array(repeating: ["--dispatch", "gate.add"], count: 5).flatMap { $0 }
        let run = try RunningMoonblade(
            ["run", slow, "--data-dir", "data", "--dispatch", "gate.wait"] + adds + ["--watch", "--save", "state.json"],
            in: workspace.url)
        // The signal once the first item runs, the gate after it (the signal reaches the process when
        // a thread of it is next scheduled; on a loaded machine the item could finish before the stop
        // is seen).
        let gate = workspace.url.appendingPathComponent("data/go.json")
        run.send(signal: SIGTERM, onceErrorOutputContains: "waiting", then: Duration.milliseconds(300).allowingForSanitizers) {
            try? FileManager.default.createDirectory(at: gate.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? Data("true".utf8).write(to: gate, options: .atomic)
        }
        let outcome = try await run.waitForExit()
        #expect(outcome.status == 143)
        #expect(outcome.stderr.contains("stopped: 5 --dispatch item(s) not run, from gate.add"), "\(outcome.stderr)")
        #expect(try workspace.read("state.json") == "{\n  \"passed\": true\n}\n")
    }

    @Test func theDispatchInFlightSettlesBeforeTheSave() async throws {
        let slow = try workspace.plugin("slow", Self.plugin)
        let run = try RunningMoonblade(["run", slow, "--watch", "--save", "state.json"], in: workspace.url)
        try run.send("slow.busy")
        try await run.waitUntil("the side effect to start") { _, stderr in stderr.contains("busy") }
        run.send(signal: SIGINT)
        let outcome = try await run.waitForExit()
        #expect(outcome.status == 130)
        #expect(try workspace.read("state.json") == "{\n  \"spun\": true\n}\n")
    }

    /// A runaway line that does not settle in the grace has its plugin code interrupted: its failure is
    /// reported with its place (it was "abandoned", its Lua left running), and the state is saved.
    @Test(.hangGuard) func aDispatchThatDoesNotSettleIsInterruptedAndTheStateSaved() async throws {
        let slow = try workspace.plugin("slow", Self.plugin)
        let run = try RunningMoonblade(["run", slow, "--watch", "--save", "state.json"], in: workspace.url)
        try run.send("slow.add")
        try run.send("slow.forever")
        // Sent from a thread of its own once the side effect runs, before its 30 s limit whatever the load.
        let stopped = ContinuousClock.now
        run.send(signal: SIGTERM, onceErrorOutputContains: "forever")
        let outcome = try await run.waitForExit()
        #expect(outcome.status == 143)
        #expect(ContinuousClock.now - stopped < Duration.seconds(20).allowingForSanitizers)
        #expect(outcome.stderr.contains("error: slow.forever: slow/plugin.lua:14: interrupted"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("abandoned"))
        #expect(try workspace.read("state.json") == "{\n  \"total\": 1\n}\n")
    }

    @Test func withoutSaveTheStateIsPrinted() async throws {
        let slow = try workspace.plugin("slow", Self.plugin)
        let run = try RunningMoonblade(["run", slow, "--watch"], in: workspace.url)
        try run.send("slow.add")
        try run.send("slow.busy")
        try await run.waitUntil("the side effect to start") { _, stderr in stderr.contains("busy") }
        run.send(signal: SIGINT)
        let outcome = try await run.waitForExit()
        #expect(outcome.status == 130)
        #expect(try outcome.json() == ["total": 1, "spun": true])
    }
}
