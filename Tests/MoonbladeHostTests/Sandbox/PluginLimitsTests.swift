import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Limits per plugin: a host gives one plugin a tight budget, memory or time and another the host-wide
/// ones; the error names the limit and the plugin.
@Suite("Limits per plugin")
struct PluginLimitsTests {
    let scratch = ScratchPlugins()

    /// Two plugins with the same code, `tight` and `roomy`: a loop, a big string, a slow side effect.
    private func host(_ limits: PluginLimits) throws -> PluginHost<AppState> {
        let code = { (name: String) in
            """
            return {
              name = "\(name)",
              updaters = {
                spin = function(state) for i = 1, 200000 do state.counter = i end end,
                hoard = function(state) local s = string.rep("x", 8 << 20); state.counter = #s end,
              },
              side_effects = {
                stall = function(ctx) ctx.deps.clock.sleep { seconds = 0.5 } end,
              },
            }
            """
        }
        var dependencies = PluginDependencies()
        struct Sleep: Decodable, Sendable { var seconds: Double }
        dependencies.expose("clock", "sleep") { (request: Sleep) async throws in
            try await Task.sleep(for: .seconds(request.seconds))
        }
        var configuration = PluginHost<AppState>.Configuration()
        configuration.pluginLimits = ["tight": limits]
        return try PluginHost<AppState>(
            plugins: [try scratch.write("tight", code("tight")), try scratch.write("roomy", code("roomy"))],
            dependencies: dependencies, configuration: configuration)
    }

    @Test func aTightBudgetStopsOnePluginAndNotTheOther() async throws {
        let host = try host(PluginLimits(instructionBudget: 50_000))
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("tight.spin").value }
        #expect(error.kind == .limit)
        #expect(error.plugin == "tight")
        #expect(error.message.contains("instruction budget of 50000 instructions exceeded"))
        #expect(error.location?.description == "tight/plugin.lua:4")  // the loop, not the draft machinery
        #expect(host.state.counter == 0)
        try await host.dispatch("roomy.spin").value
        #expect(host.state.counter == 200_000)
    }

    @Test func aTightMemoryLimitStopsOnePluginAndNotTheOther() async throws {
        let host = try host(PluginLimits(memoryLimit: 4 << 20))
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("tight.hoard").value }
        #expect(error.kind == .limit)
        #expect(error.plugin == "tight")
        #expect(error.message.contains("memory"))
        #expect(host.state.counter == 0)
        try await host.dispatch("roomy.hoard").value
        #expect(host.state.counter == 8 << 20)
    }

    @Test func aTightSideEffectTimeLimitStopsOnePluginAndNotTheOther() async throws {
        let host = try host(PluginLimits(sideEffectTimeLimit: .milliseconds(100)))
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("tight.stall").value }
        #expect(error.kind == .limit)
        #expect(error.plugin == "tight")
        #expect(error.message.contains("time limit of 0.1 s exceeded"))
        try await host.dispatch("roomy.stall").value
    }

    @Test func anObserverRuleRunsUnderItsPluginsLimits() async throws {
        let log = RecordingLogHandler.Log()
        var configuration = PluginHost<AppState>.Configuration(logger: log.logger)
        configuration.pluginLimits = ["tight": PluginLimits(instructionBudget: 50_000)]
        let rules = try scratch.write(
            "tight",
            """
            return {
              name = "tight",
              updaters = { set = function(state, p) state.counter = p.value end },
              observers = {
                { on_state_change = function(old, new)
                    if new.counter == -1 then for i = 1, 200000 do end end
                    return false
                  end, dispatch = { "tight.set" } },
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [rules], configuration: configuration)
        try await host.dispatch("tight.set", ["value": -1]).value
        await host.settle()
        #expect(log.lines.contains { $0.contains("instruction budget of 50000 instructions exceeded") && $0.contains("tight") })
    }
}
