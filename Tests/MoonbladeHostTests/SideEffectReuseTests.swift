import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// Side effect runs reuse the Lua threads of earlier runs of the same plugin: a run still
/// starts with a ctx of its own, a failed run's thread is not reused, and a thread a plugin kept from
/// an earlier run never reaches another plugin's run.
@Suite("Side effect coroutine reuse")
struct SideEffectReuseTests {
    let scratch = ScratchPlugins()
    /// `slow.forever` calls waiting to be released.
    let parked = Locked<[CheckedContinuation<Void, Never>]>([])

    let plugin = """
        local kept
        return {
          side_effects = {
            note = function(ctx, p)
              local before = ctx.note
              ctx.note = p.n
              return tostring(before)
            end,
            fail = function(ctx) error("broken") end,
            keep = function(ctx) kept = coroutine.running() end,
            poke = function(ctx)
              local ok, message = coroutine.resume(kept, true, 5)
              return tostring(ok) .. " " .. tostring(message) .. " " .. coroutine.status(kept)
            end,
            wait = function(ctx) return ctx.deps.slow.forever() end,
          },
        }
        """

    func host() throws -> PluginHost<AppState> {
        var dependencies = PluginDependencies()
        dependencies.expose("slow", "forever") { [parked] () async -> Int in
            await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
            return 100
        }
        let host = try PluginHost<AppState>(
            plugins: [try scratch.write("keeper", plugin), try scratch.write("other", plugin)], dependencies: dependencies)
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    @Test func eachRunStartsWithAFreshCtxAndRunsAfterAFailureGoOn() async throws {
        let host = try host()
        for n in 1...20 {
            #expect(try await host.dispatch("keeper.note", ["n": n], returning: String.self).value == "nil")
            if n.isMultiple(of: 5) {
                let error = await #expect(throws: PluginError.self) { try await host.dispatch("keeper.fail").value }
                #expect(error?.description == "keeper.fail: keeper/plugin.lua:9: broken")
            }
        }
    }

    @Test func aKeptThreadNeverReachesAnotherPluginsRun() async throws {
        let host = try host()
        try await host.dispatch("keeper.keep").value  // its thread goes back to be reused
        let waiting = try host.dispatch("other.wait", returning: Int.self)
        while parked.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        // `other.wait` awaits on a thread of its own; keeper's next run got keeper's thread back.
        #expect(
            try await host.dispatch("keeper.poke", returning: String.self).value
                == "false cannot resume non-suspended coroutine running")
        parked.withLock { $0.forEach { $0.resume() } }
        #expect(try await waiting.value == 100)
    }
}
