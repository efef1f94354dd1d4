/// Runs tests whose work holds a thread of the cooperative pool for seconds one at a time, across
/// suites: synchronous Lua that fills a memory limit or runs to a budget holds the thread of the task
/// it runs on. Two of them at once held both threads of a 2-core machine's pool, and every test that
/// awaits (side effects, time bounds, reloads) waited tens of seconds for one. Waiting for the turn
/// suspends, holding no thread.
public actor PoolHoldingWork {
    /// The one turn the whole test process shares.
    public static let shared = PoolHoldingWork()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once no other pool-holding work runs; a test's time bounds start inside it.
    public nonisolated func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await take()
        do {
            let result = try await body()
            await give()
            return result
        } catch {
            await give()
            throw error
        }
    }

    private func take() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func give() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
