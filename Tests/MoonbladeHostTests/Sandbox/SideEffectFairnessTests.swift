import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// A Lua side effect whose awaits answer at once (polling a clock) never suspends by itself; it
/// yields its thread every so many awaits, so that runs outnumbering the shared pool's threads leave
/// the host's other tasks their turn.
@Suite("Side effects share the pool")
struct SideEffectFairnessTests {
    let scratch = ScratchPlugins()

    /// A measure of scheduling, not of races: under a sanitizer its runs would hold the pool for minutes,
    /// and every other test's bound with it.
    @Test(.hangGuard, .disabled(if: sanitizerSlowdown > 1, "a measure of scheduling; sanitizers are for races"))
    func pollingSideEffectsLeaveOtherTasksTheirTurn() async throws {
        var dependencies = PluginDependencies()
        dependencies.expose("clock", "now") { () -> Double in Date().timeIntervalSince1970 }
        let plugin = try scratch.write(
            "poll",
            """
            return { side_effects = { poll = function(ctx, p)
              local stop = ctx.deps.clock.now() + p.seconds
              while ctx.deps.clock.now() < stop do end
            end } }
            """)
        // One more run than the pool has threads: without yields, the ticker waits for a whole run. The
        // runs are long and the bound three quarters of one, since other tests in the process hold the
        // pool's threads too (a plain full run saw a 2.2 s gap with runs of 3 s).
        let seconds = Duration.seconds(6)
        let host = try PluginHost<AppState>(
            plugins: [plugin], dependencies: dependencies, configuration: .init(sideEffectTimeLimit: seconds * 4))
        // A task that wakes every few milliseconds while the side effects poll, noting its longest wait.
        let polling = Locked(true)
        let longestGap = Locked(Duration.zero)
        let ticker = Task {
            let clock = ContinuousClock()
            var last = clock.now
            while polling.withLock({ $0 }) {
                try? await Task.sleep(for: .milliseconds(5))
                let now = clock.now
                if polling.withLock({ $0 }) { longestGap.withLock { $0 = max($0, now - last) } }
                last = now
            }
        }
        let runs = try (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in
            try host.dispatch("poll.poll", ["seconds": seconds.components.seconds])
        }
        for run in runs { try await run.value }
        polling.withLock { $0 = false }
        await ticker.value
        #expect(longestGap.withLock { $0 } < seconds * 3 / 4, "the ticker waited \(longestGap.withLock { $0 })")
    }
}
