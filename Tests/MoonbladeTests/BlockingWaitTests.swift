import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

/// Runs `body` on a thread of its own and returns its result, or nil if it has not returned within
/// `timeout`: a body that blocks forever fails its test instead of hanging the run (the thread is
/// abandoned, still blocked).
func onThread<T: Sendable>(timeout: Duration = .seconds(10), _ body: @escaping @Sendable () -> T) async -> T? {
    let outcome = FirstOutcome<T>()
    Thread { outcome.finish(body()) }.start()
    Task {
        try? await Task.sleep(for: timeout)
        outcome.finish(nil)
    }
    return await outcome.value
}

/// A synchronous interceptor that, for items of type `Trigger`, dispatches `Append("waited")` and
/// blocks until it has been applied, as a Katana interceptor blocks on Hydra's `await`.
func waitingFor<Trigger: Dispatchable>(_: Trigger.Type, errors: Recorder<StoreError>) -> StoreInterceptor {
    { context in
        { next in
            { dispatchable in
                if dispatchable is Trigger {
                    do {
                        try context.dispatch(Append("waited")).wait()
                    } catch let error as StoreError {
                        errors.append(error)
                        throw error
                    }
                }
                try next(dispatchable)
            }
        }
    }
}

/// Dispatches `Trigger()` to a store whose interceptor waits for a dispatch of its own when it sees
/// one, on a thread of its own, and returns the store and the error the wait failed with; a wait that
/// deadlocks fails the test after the thread's timeout.
func refusedWait<Trigger: Dispatchable & Sendable>(
    _ trigger: Trigger, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (TestStore, StoreError) {
    let errors = Recorder<StoreError>()
    let store = TestStore(interceptors: [waitingFor(Trigger.self, errors: errors)])
    let result = await onThread { Result { _ = try store.anyDispatch(trigger).wait() } }
    let outcome = try #require(result, "the wait deadlocked", sourceLocation: sourceLocation)
    #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try outcome.get() }
    return (store, try #require(errors.values.first, sourceLocation: sourceLocation))
}

@Suite("Blocking wait", .hangGuard)
struct BlockingWaitTests {
    @Test("an interceptor waiting for an updater it dispatched, from an updater's chain, fails at once instead of deadlocking")
    func waitInAnUpdaterChainFails() async throws {
        let (store, error) = try await refusedWait(Increment())
        guard case .unservableWait(let place, let processing) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(place.hasPrefix("MoonbladeTests/BlockingWaitTests.swift:"))
        #expect(processing == "MoonbladeTests.Increment")
        #expect(error.description.contains("cannot be served"))
        // The refused item never ran; the one it dispatched still did, after it.
        #expect(store.state == TestState(count: 0, log: ["waited"]))
    }

    @Test("the same wait while a side effect is intercepted fails too, and points at SideEffectInterceptor")
    func waitInASideEffectChainFails() async throws {
        let (store, error) = try await refusedWait(AppendRan())
        #expect(error.description.contains("SideEffectInterceptor"))
        #expect(store.state.log == ["waited"])
    }

    @Test("off the draining thread, wait blocks until the item has been handled and returns its value")
    func waitOffTheDrain() async throws {
        let store = TestStore()
        let values = await onThread {
            Result { () throws -> [Int] in
                try store.dispatch(Increment(by: 2)).wait()
                return try [store.dispatch(Square(value: 3)).wait()] + store.dispatch(ReadDispatchRead()).wait()
            }
        }
        #expect(try #require(values).get() == [9, 2, 3])
        let failure = await onThread { Result { try store.dispatch(ThrowingSideEffect()).wait() } }
        #expect(throws: TestError(message: "side effect failed")) { try #require(failure).get() }
    }
}

@Suite("Blocking wait for a dispatch with retries", .hangGuard)
struct RetryingBlockingWaitTests {
    @Test("waiting on the draining thread for a dispatch with retries fails at once instead of deadlocking")
    func waitForRetriesOnTheDrainingThreadFails() async throws {
        let errors = Recorder<StoreError>()
        let waiting: StoreInterceptor = { context in
            { next in
                { dispatchable in
                    if dispatchable is Increment {
                        do {
                            try context.dispatch(Append("waited"), retries: 1).wait()
                        } catch let error as StoreError {
                            errors.append(error)
                            throw error
                        }
                    }
                    try next(dispatchable)
                }
            }
        }
        let store = TestStore(interceptors: [waiting])
        let result = await onThread { Result { _ = try store.anyDispatch(Increment()).wait() } }
        let outcome = try #require(result, "the wait deadlocked")
        #expect(throws: StoreError.self) { try outcome.get() }
        guard case .unservableWait(let place, _)? = errors.values.first else {
            Issue.record("unexpected \(errors.values)")
            return
        }
        #expect(place.hasPrefix("MoonbladeTests/BlockingWaitTests.swift:"))
        #expect(store.state == TestState(count: 0, log: ["waited"]))
    }
}
