import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --trace, --metrics")
struct ObservabilityTests {
    let workspace = Workspace()

    func plugin() throws -> String {
        try workspace.plugin(
            "shop",
            """
            return {
              name = "shop",
              updaters = {
                add = function(state, p) state.items = (state.items or 0) + p.n end,
                spin = function(state) while true do end end,
              },
              side_effects = {
                restock = function(ctx)
                  local now = ctx.deps.clock.now()
                  ctx.dispatch("shop.add", { n = 3 })
                end,
              },
            }
            """)
    }

    @Test func tracePrintsEachDispatchsSpanTreeWithDurations() async throws {
        let outcome = try await workspace.run("run", try plugin(), "--dispatch", "shop.restock", "--trace")
        #expect(outcome.status == 0)
        #expect(try outcome.json() == ["items": 3])
        // Durations vary: compare the shape, each line's name and outcome with its duration blanked.
        let duration = /\d+(\.\d+)? (ns|µs|ms|s)/
        let shape = outcome.stderr.replacing(duration, with: "T")
        #expect(
            shape == """
                trace: dispatch shop.restock T ok
                  lua T
                  await ctx.deps.clock.now T
                  lua T
                  await ctx.dispatch shop.add T
                    dispatch shop.add T ok
                      state to lua T
                      lua T
                      state from lua T
                  lua T

                """)
    }

    @Test func metricsPrintsASummaryAtTheEndEvenAfterAFailure() async throws {
        let outcome = try await workspace.run(
            "run", try plugin(), "--dispatch", "shop.add", #"{"n": 1}"#, "--dispatch", "shop.add", #"{"n": 2}"#,
            "--dispatch", "shop.spin", "--metrics")
        #expect(outcome.status != 0)
        let metrics = outcome.stderr.split(separator: "\n")
            .filter { $0.hasPrefix("metrics: ") && !$0.contains(MetricName.vmMemory) }
            .map { $0.replacing(/mean .*/, with: "…") }
        #expect(
            metrics == [
                "metrics: moonblade_dispatch_duration{item=shop.add} count 2, …",
                "metrics: moonblade_dispatch_duration{item=shop.spin} count 1, …",
                "metrics: moonblade_dispatches_total{item=shop.add,kind=updater,outcome=ok} 2",
                "metrics: moonblade_dispatches_total{item=shop.spin,kind=updater,outcome=error} 1",
                metrics.last { $0.contains("limit_failures_total") } ?? "no limit failure",
            ])
        // The budget stops the spin, unless the machine (a sanitized build, a loaded one) is slow enough
        // for the call's time limit to strike first: either is one limit failure.
        #expect(
            [
                "metrics: moonblade_limit_failures_total{limit=budget} 1",
                "metrics: moonblade_limit_failures_total{limit=time} 1",
            ].contains(metrics.last ?? ""))
        #expect(outcome.stderr.contains(/metrics: moonblade_vm_memory_bytes \d+/))
        #expect(!outcome.stderr.contains("trace:"))
    }
}
