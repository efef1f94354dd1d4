import Moonblade

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Waits until `store` is idle (nothing queued or being processed on any thread, no side effect
/// running) or `timeout` passes; returns whether it became idle.
///
/// `waitUntilIdle` cannot be cancelled, so on a timeout its task is left waiting (and keeps the store)
/// until the store does become idle.
func waitUntilIdle<S, D>(_ store: Store<S, D>, timeout: Duration) async -> Bool {
    let (outcomes, continuation) = AsyncStream.makeStream(of: Bool.self)
    Task {
        await store.waitUntilIdle()
        continuation.yield(true)
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        continuation.yield(false)
    }
    defer { timer.cancel() }
    var first = outcomes.makeAsyncIterator()
    return await first.next() ?? false
}
