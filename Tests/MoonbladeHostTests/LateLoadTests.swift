import Foundation
import MoonbladeHost
import Testing

/// A plugin that did not load at start loads into the running host once it is fixed.
@Suite struct LateLoadTests {
    let scratch = ScratchPlugins()

    static let late = """
        return {
          name = "late",
          updaters = { bump = function(state) state.counter = state.counter + 10 end },
          observers = { { on_dispatch = "late.bump", dispatch = { "late.again" } } },
          side_effects = { again = function(ctx) ctx.dispatch("early.bump") end },
        }
        """

    static let early = """
        return { name = "early", updaters = { bump = function(state) state.counter = state.counter + 1 end } }
        """

    @Test func aBrokenPluginIsLeftOutUntilItLoadsThenWorksWithItsRules() async throws {
        let early = try scratch.write("early", Self.early)
        let late = try scratch.write("late", "return { name = \"late\", updaters = { bump = 42 } }")
        let host = try PluginHost<AppState>(plugins: [early, late])
        #expect(host.plugins.map(\.name) == ["early"])
        #expect(host.unloadedDirectories == [late])
        let log = ReloadLog(host)

        let error = #expect(throws: PluginError.self) { try host.load(plugin: late) }
        #expect(error?.kind == .shape)
        #expect(host.unloadedDirectories == [late])

        _ = try scratch.write("late", Self.late)
        let info = try host.load(plugin: late)
        #expect(info.name == "late")
        #expect(host.unloadedDirectories.isEmpty)
        #expect(host.plugins.map(\.name) == ["early", "late"])
        _ = try await host.dispatchAndSettle("late.bump")
        #expect(host.state.counter == 11)
        await waitUntil { log.all.count == 4 }
        #expect(log.all.map { $0.prefix(12) } == ["started late", "refused late", "started late", "loaded late "])
    }

    @Test func aLoadedPluginCannotBeLoadedTwice() throws {
        let early = try scratch.write("early", Self.early)
        let host = try PluginHost<AppState>(plugins: [early])
        let error = #expect(throws: PluginError.self) { try host.load(plugin: early) }
        #expect(error?.kind == .duplicate)
        #expect(host.plugins.count == 1)
    }
}
