import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// The state of the busy plugin: how many bumps, and the mark of the version that made the last one.
private struct BusyState: State, Codable, Equatable {
    var counter = 0
    var step = 0
}

@Suite("Reloads while the host is busy")
struct BusyReloadTests {
    let scratch = ScratchPlugins()

    /// Dispatchers that never suspend hold every thread of the cooperative pool (and one more is
    /// waiting); a watched edit must still be swapped in between two of their dispatches, within a
    /// bounded time. The watching is done from a thread of its own for the same reason, and that
    /// thread bumps too while it waits: run beside other tests that hold the pool, the dispatchers
    /// may get no thread at all, and the new code must be seen all the same.
    @Test func aWatchedEditIsSwappedInWhileDispatchersHoldEveryPoolThread() async throws {
        let folder = try scratch.write("busy", versionedBusy(2))
        let host = try PluginHost<BusyState>(plugins: [folder])
        let watcher = host.watchPlugins(debounce: .milliseconds(10))
        defer { watcher.stop() }
        let stop = Locked(false)
        let dispatchers = (0..<(ProcessInfo.processInfo.activeProcessorCount + 1)).map { _ in
            Task.detached {
                let giveUp = ContinuousClock.now + .seconds(30)
                while !stop.withLock({ $0 }), ContinuousClock.now < giveUp {
                    // Fire and forget, then a little busy work: this task never suspends, and it
                    // queues no faster than the store applies.
                    _ = try? host.dispatch("busy.bump")
                    let busyUntil = ContinuousClock.now + .microseconds(50)
                    while ContinuousClock.now < busyUntil {}
                }
            }
        }
        // The edit and the wait for it happen on a thread outside the pool.
        let sawNewCode = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.2)  // let the dispatchers take the pool
                try? versionedBusy(7).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
                let deadline = Date().addingTimeInterval(25)
                var seen = false
                while !seen, Date() < deadline {
                    _ = try? host.dispatch("busy.bump")
                    seen = host.state.step == 7
                    Thread.sleep(forTimeInterval: 0.005)
                }
                stop.withLock { $0 = true }
                done.resume(returning: seen)
            }
        }
        for dispatcher in dispatchers { await dispatcher.value }
        #expect(sawNewCode, "the edited plugin was not swapped in within 25 s while dispatchers were busy")
    }
}

/// A plugin `busy` whose `bump` counts and records `step` (its version's mark).
private func versionedBusy(_ step: Int) -> String {
    """
    return {
      name = "busy",
      updaters = { bump = function(state) state.counter = state.counter + 1; state.step = \(step) end },
    }
    """
}

@Suite("The host's memory")
struct HostMemoryTests {
    @Test func memoryInUseCountsWhatPluginsKeep() async throws {
        let scratch = ScratchPlugins()
        let folder = try scratch.write(
            "hoard",
            """
            local kept = {}
            return {
              name = "hoard",
              updaters = {
                keep = function() kept[#kept + 1] = string.rep("x", 4 << 20) end,
              },
            }
            """)
        let host = try PluginHost<BusyState>(plugins: [folder])
        let before = host.memoryInUse
        try await host.dispatch("hoard.keep").value
        #expect(host.memoryInUse >= before + (3 << 20))
    }
}
