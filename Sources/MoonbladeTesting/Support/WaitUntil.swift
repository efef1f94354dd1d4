import Moonblade

/// How a wait for something a store's work brings about ended.
enum StoreWaitOutcome {
    /// What was awaited happened.
    case held
    /// The store became idle without it: no side effect runs and no item is queued, so nothing more
    /// can bring it about.
    case idle
    /// The guard time passed while the store was still busy (a side effect hung on its work).
    case timedOut
}

/// Waits until `condition` holds or `store` is idle with `condition` still false, whichever comes
/// first; `guardTime` only ends a wait on work that never ends.
///
/// The answer depends on what the store did, not on how fast it did it: a slow machine makes the wait
/// longer, never its outcome different. Items are recorded while the store processes them, so once it
/// is idle every item its work dispatched has been seen, and `condition` is read once more then.
func waitUntil<S, D>(
    _ condition: @Sendable () -> Bool, orIdle store: Store<S, D>, guardTime: Duration
) async -> StoreWaitOutcome {
    let clock = ContinuousClock()
    let deadline = clock.now + guardTime
    while true {
        if condition() { return .held }
        if store.isIdle { return condition() ? .held : .idle }
        if clock.now >= deadline { return .timedOut }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Waits until `store` is idle (nothing queued or being processed on any thread, no side effect
/// running) or `guardTime` passes; returns whether it became idle.
func waitUntilIdle<S, D>(_ store: Store<S, D>, guardTime: Duration) async -> Bool {
    await waitUntil({ false }, orIdle: store, guardTime: guardTime) == .idle
}
