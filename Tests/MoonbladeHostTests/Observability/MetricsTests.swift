import MetricsTestKit
import MoonbladeHost
import Testing

@Suite("Metrics")
struct MetricsTests {
    let metrics = TestMetrics()
    let scratch = ScratchPlugins()

    let plugin = """
        return {
          name = "met",
          updaters = {
            bump = function(state) state.counter = state.counter + 1 end,
            fail = function(state) error("refused") end,
            spin = function(state) while true do end end,
            hoard = function(state) local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end end,
          },
          side_effects = {
            stall = function(ctx) ctx.deps.slow.wait {} end,
          },
        }
        """

    func host() throws -> PluginHost<AppState> {
        var dependencies = PluginDependencies()
        dependencies.expose("slow", "wait") { (_: JSONValue) async throws in try await Task.sleep(for: .seconds(10)) }
        let host = try PluginHost<AppState>(
            plugins: [try scratch.write("met", plugin)], dependencies: dependencies,
            configuration: .init(
                memoryLimit: 8 << 20, instructionBudget: 10_000_000, sideEffectTimeLimit: .milliseconds(50),
                metricsFactory: metrics))
        #expect(host.loadErrors.isEmpty)
        return host
    }

    @Test func dispatchesAreCountedByItemAndOutcomeAndTimed() async throws {
        let host = try host()
        try await host.dispatch("met.bump").value
        try await host.dispatch("met.bump").value
        await #expect(throws: PluginError.self) { try await host.dispatch("met.fail").value }

        let ok = [("item", "met.bump"), ("kind", "updater"), ("outcome", "ok")]
        #expect(try metrics.expectCounter(MetricName.dispatches, ok).totalValue == 2)
        let failed = [("item", "met.fail"), ("kind", "updater"), ("outcome", "error")]
        #expect(try metrics.expectCounter(MetricName.dispatches, failed).totalValue == 1)
        #expect(try metrics.expectTimer(MetricName.dispatchDuration, [("item", "met.bump")]).values.count == 2)
        #expect(metrics.counters(label: MetricName.limitFailures).isEmpty)
        let memory = try metrics.expectGauge(MetricName.vmMemory).lastValue
        #expect((memory ?? 0) > 10_000)
    }

    @Test func limitFailuresAreCountedByLimit() async throws {
        let host = try host()
        for item in ["met.spin", "met.hoard", "met.stall", "met.spin"] {
            let error = await #expect(throws: PluginError.self) { try await host.dispatch(item).value }
            #expect(error?.kind == .limit)
        }
        #expect(try metrics.expectCounter(MetricName.limitFailures, [("limit", "budget")]).totalValue == 2)
        #expect(try metrics.expectCounter(MetricName.limitFailures, [("limit", "memory")]).totalValue == 1)
        #expect(try metrics.expectCounter(MetricName.limitFailures, [("limit", "time")]).totalValue == 1)
        let stalled = [("item", "met.stall"), ("kind", "side_effect"), ("outcome", "error")]
        #expect(try metrics.expectCounter(MetricName.dispatches, stalled).totalValue == 1)
        try await host.dispatch("met.bump").value
        #expect(host.state.counter == 1)
    }

    @Test func reloadsAreCountedByOutcome() async throws {
        let host = try host()
        try await host.reload(plugin: "met")
        _ = try scratch.write("met", "return { name = 'met', updaters = { bump = 42 } }")
        await #expect(throws: PluginError.self) { try await host.reload(plugin: "met") }
        #expect(try metrics.expectCounter(MetricName.reloads, [("plugin", "met"), ("outcome", "ok")]).totalValue == 1)
        #expect(try metrics.expectCounter(MetricName.reloads, [("plugin", "met"), ("outcome", "failed")]).totalValue == 1)
    }
}
