import Foundation
import MoonbladeHost
import Testing

/// Sorts that compare in C, run from the command line at the default limits (100 M instructions, 5 s a
/// call). Before each comparison was charged, the updater's sort ran a minute and succeeded, and the
/// rule's loop ran until it was killed.
@Suite("moonblade: sorts that compare in C under the default limits", .serialized)
struct HostileSortTests {
    let workspace = Workspace()

    static let plugin = """
        return {
          updaters = {
            sort = function(state) state.n = -1 local z = ('\\0'):rep(8e6) local t = {} for i = 1, 200 do t[i] = z end table.sort(t) end,
            bump = function(state) state.n = (state.n or 0) + 1 end,
          },
          observers = {
            { on_dispatch = "hostile.bump", dispatch = { { "hostile.bump", function() local t = setmetatable({}, {}) for i = 1, 1e5 do t[i] = -i end while true do table.sort(t, math.ult) end end } } },
          },
        }
        """

    @Test func anUpdatersSortIsStoppedAndTheStateStays() async throws {
        let hostile = try workspace.plugin("hostile", Self.plugin)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await workspace.run("run", hostile, "--dispatch", "hostile.sort")
        #expect(clock.now - start < HostileWorkTests.bound, "took \(clock.now - start)")
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(HostileWorkTests.stopped(outcome.stderr, "error: hostile.sort: hostile/plugin.lua:3: "), "\(outcome.stderr)")
    }

    @Test func aRulesSortIsStoppedAndReported() async throws {
        try await HostileWorkTests.expectRuleStopped(in: workspace, plugin: Self.plugin, line: 7)
    }
}
