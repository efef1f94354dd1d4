import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --trace, --metrics")
struct ObservabilityTests {
    let workspace = Workspace()

    /// `shop`; with `chained`, a rule that dispatches `shop.note` after every `shop.add`.
    func plugin(chained: Bool = false) throws -> String {
        try workspace.plugin(
            "shop",
            """
            return {
              name = "shop",
              updaters = {
                add = function(state, p) state.items = (state.items or 0) + p.n end,
                note = function(state, p) state.notes = (state.notes or 0) + 1 end,
                spin = function(state) while true do end end,
              },
              side_effects = {
                restock = function(ctx)
                  local now = ctx.deps.clock.now()
                  ctx.dispatch("shop.add", { n = 3 })
                end,
              },
              observers = { \(chained ? #"{ on_dispatch = "shop.add", dispatch = { { "shop.note", function(item) return { n = item.payload.n } end } } }"# : "") },
            }
            """)
    }

    @Test func tracePrintsEachDispatchsSpanTreeWithDurations() async throws {
        let outcome = try await workspace.run("run", try plugin(), "--dispatch", "shop.restock", "--trace")
        #expect(outcome.status == 0)
        #expect(try outcome.json() == ["items": 3])
        // Durations vary: compare the shape, each line's name and outcome with its duration blanked.
        // Start times too: each line begins with one.
        let duration = /\d+(\.\d+)? (ns|µs|ms|s)/
        let start = #/\d\d:\d\d:\d\d\.\d\d\d /#
        #expect(outcome.stderr.split(separator: "\n").allSatisfy { $0.contains(start) })
        let shape = outcome.stderr.replacing(start, with: "").replacing(duration, with: "T")
        #expect(
            shape == """
                trace: dispatch shop.restock T ok
                  lua T
                  await ctx.deps.clock.now T
                  lua T
                  await ctx.dispatch shop.add T
                    dispatch shop.add {"n":3} T ok
                      state to lua T
                      lua T
                      state from lua T
                  lua T

                """)
    }

    /// A dispatch a rule set off ends inside the trace of the one that set it off: it showed as
    /// "(still running)" and was never printed again.
    @Test func aChainedDispatchIsPrintedFinished() async throws {
        let outcome = try await workspace.run("run", try plugin(chained: true), "--dispatch", "shop.restock", "--trace")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try outcome.json() == ["items": 3, "notes": 1])
        #expect(!outcome.stderr.contains("still running"), "\(outcome.stderr)")
        // In the side effect's trace, next to the dispatch that set it off.
        #expect(outcome.stderr.hasPrefix("trace: "))
        #expect(outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("trace: ") }.count == 1, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(/\n +\d\d:\d\d:\d\d\.\d{3} rule shop.observers\[1\] shop.note \d+(\.\d+)? (ns|µs|ms|s)\n/), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(/\n +\d\d:\d\d:\d\d\.\d{3} dispatch shop.note \{"n":3\} \d+(\.\d+)? (ns|µs|ms|s) ok\n/), "\(outcome.stderr)")
    }

    @Test func traceJSONPrintsOneObjectPerFinishedDispatch() async throws {
        let outcome = try await workspace.run("run", try plugin(chained: true), "--dispatch", "shop.restock", "--trace", "json")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // In the order they end, which for the rule's dispatch and the side effect is either.
        let objects = try outcome.stderr.split(separator: "\n").map { try JSONValue(json: Array($0.utf8)) }
            .sorted { "\($0["item"] ?? .null)" < "\($1["item"] ?? .null)" }
        #expect(objects.map { $0["item"] } == ["shop.add", "shop.note", "shop.restock"].map { JSONValue.string($0) })
        #expect(objects.map { $0["parent"] } == [.string("shop.restock"), .string("shop.restock"), .null])
        #expect(objects[0]["payload"] == #"{"n":3}"#)
        #expect(objects.allSatisfy { $0["outcome"] == "ok" && $0["start"] != .null && $0["plugin"] == "shop" })
        if case .double(let milliseconds)? = objects[2]["duration_ms"] { #expect(milliseconds > 0) } else { Issue.record("no duration") }
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
