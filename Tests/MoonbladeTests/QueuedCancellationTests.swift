import Moonblade
import MoonbladeTestSupport
import Synchronization
import Testing

/// Sleeps until cancelled: returns only if nobody cancels it within a minute.
private struct SleepUntilCancelled: SideEffect {
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        try await Task.sleep(for: .seconds(60))
    }
}

/// A type-erased updater that hands back a state of another type than the one it was given.
private struct ReturnsAnotherState: AnyStateUpdater {
    func updatedState(currentState: any State) throws -> any State { OtherState() }
}

/// Handles of items queued behind the item being processed (here, dispatched by a listener, which runs
/// on the draining thread) are boxes resolved once the item runs; cancelling one must reach the side
/// effect it turns out to be, whether it is cancelled before or after the item ran.
@Suite("Cancelling queued items", .hangGuard)
struct QueuedCancellationTests {
    @Test("a queued side effect cancelled before it runs is cancelled as it starts")
    func cancelledBeforeItRuns() async throws {
        let store = TestStore()
        let queued = Mutex<DispatchHandle<Void>?>(nil)
        _ = store.addListener { [weak store] _, new in
            guard let store, new.count == 1 else { return }
            let handle = store.dispatch(SleepUntilCancelled())
            handle.cancel()  // the store is busy with `Increment`: the side effect has not started
            queued.withLock { $0 = handle }
        }
        try await store.dispatch(Increment()).value
        let handle = try #require(queued.withLock { $0 })
        await #expect(throws: CancellationError.self) { try await handle.value }
    }

    @Test("a queued side effect cancelled after it started is cancelled")
    func cancelledAfterItStarted() async throws {
        let store = TestStore()
        let queued = Mutex<DispatchHandle<Void>?>(nil)
        _ = store.addListener { [weak store] _, new in
            guard let store, new.count == 1 else { return }
            queued.withLock { $0 = store.dispatch(SleepUntilCancelled()) }
        }
        try await store.dispatch(Increment()).value  // returns once the queue is drained: the side effect runs
        let handle = try #require(queued.withLock { $0 })
        handle.cancel()
        await #expect(throws: CancellationError.self) { try await handle.value }
        try await store.dispatch(Increment()).value
        #expect(store.state.count == 2)
    }

    @Test("a type-erased updater returning another state type fails with typeMismatch, the state untouched")
    func typeErasedUpdaterOfAnotherStateType() async throws {
        let store = TestStore()
        try await store.dispatch(Increment()).value
        await #expect(
            throws: StoreError.typeMismatch(expected: String(reflecting: TestState.self), found: String(reflecting: OtherState.self))
        ) {
            try await store.dispatch(ReturnsAnotherState()).value
        }
        #expect(store.state == TestState(count: 1))
    }
}
