import Moonblade
import MoonbladeTestSupport
import Synchronization
import Testing

/// Counts the attempts made at a flaky item.
final class Attempts: Sendable {
    private let count = Atomic(0)

    /// Records an attempt and returns its number, from 1.
    func next() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }

    var made: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// Fails its first `failures` attempts before doing anything; then appends "work" and returns the
/// number of the attempt that succeeded.
struct Flaky: ReturningSideEffect {
    let attempts: Attempts
    let failures: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
        let attempt = attempts.next()
        guard attempt > failures else { throw TestError(message: "attempt \(attempt)") }
        try await context.dispatch(Append("work")).value
        return attempt
    }
}

/// A plain side effect that fails its first `failures` attempts, then appends "work".
struct FlakyPlain: SideEffect {
    let attempts: Attempts
    let failures: Int
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        let attempt = attempts.next()
        guard attempt > failures else { throw TestError(message: "attempt \(attempt)") }
        try await context.dispatch(Append("work")).value
    }
}

/// An updater that fails its first `failures` attempts, leaving the state as it was.
struct FlakyUpdater: StateUpdater {
    let attempts: Attempts
    let failures: Int
    func updateState(_ state: inout TestState) throws {
        state.count += 1
        let attempt = attempts.next()
        guard attempt > failures else { throw TestError(message: "attempt \(attempt)") }
    }
}

/// Waits until it is cancelled, counting its attempts.
struct WaitForCancellation: SideEffect {
    let attempts: Attempts
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        _ = attempts.next()
        try await Task.sleep(for: .seconds(600))
    }
}

@Suite("Retry", .hangGuard)
struct RetryTests {
    @Test("a side effect that fails once and then succeeds leaves its work done once")
    func failsOnceThenSucceeds() async throws {
        let store = TestStore()
        let attempts = Attempts()
        try await store.dispatch(FlakyPlain(attempts: attempts, failures: 1), retries: 2).value
        #expect(attempts.made == 2)
        #expect(store.state.log == ["work"])
    }

    @Test("a retried ReturningSideEffect returns the value of the attempt that succeeded")
    func returningValue() async throws {
        let store = TestStore()
        let attempts = Attempts()
        #expect(try await store.dispatch(Flaky(attempts: attempts, failures: 2), retries: 2).value == 3)
        #expect(store.state.log == ["work"])
    }

    @Test("when every attempt fails, the last one's error is reported and nothing more is tried")
    func lastErrorReported() async throws {
        let store = TestStore()
        let attempts = Attempts()
        await #expect(throws: TestError(message: "attempt 3")) {
            try await store.dispatch(Flaky(attempts: attempts, failures: 5), retries: 2).value
        }
        #expect(attempts.made == 3)
        #expect(store.state.log.isEmpty)
    }

    @Test("a failing updater is retried, and each failed attempt leaves the state as it was")
    func updater() async throws {
        let store = TestStore()
        let attempts = Attempts()
        try await store.dispatch(FlakyUpdater(attempts: attempts, failures: 2), retries: 2).value
        #expect(attempts.made == 3)
        #expect(store.state.count == 1)

        let failing = Attempts()
        await #expect(throws: TestError(message: "attempt 2")) {
            try await store.dispatch(FlakyUpdater(attempts: failing, failures: 9), retries: 1).value
        }
        #expect(store.state.count == 1)
    }

    @Test("an item that succeeds at once is not dispatched again")
    func successIsNotRetried() async throws {
        let store = TestStore()
        store.dispatch(Increment(), retries: 3)
        #expect(store.state.count == 1)
        let attempts = Attempts()
        #expect(try await store.anyDispatch(Flaky(attempts: attempts, failures: 0), retries: 3).value as? Int == 1)
        #expect(attempts.made == 1)
    }

    @Test("retries made from a side effect's context go through the same store")
    func fromAContext() async throws {
        struct RetryInside: ReturningSideEffect {
            let attempts: Attempts
            func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
                try await context.dispatch(Flaky(attempts: attempts, failures: 1), retries: 1).value
            }
        }
        let store = TestStore()
        #expect(try await store.dispatch(RetryInside(attempts: Attempts())).value == 2)
        #expect(store.state.log == ["work"])
    }

    @Test("attempts are at least the delay apart")
    func delay() async throws {
        struct Timed: ReturningSideEffect {
            let times: Recorder<ContinuousClock.Instant>
            func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
                times.append(.now)
                guard times.values.count == 3 else { throw TestError(message: "not yet") }
                return 3
            }
        }
        let store = TestStore()
        let times = Recorder<ContinuousClock.Instant>()
        #expect(try await store.dispatch(Timed(times: times), retries: 2, delay: .milliseconds(50)).value == 3)
        let instants = times.values
        #expect(instants.count == 3)
        for (earlier, later) in zip(instants, instants.dropFirst()) {
            #expect(later - earlier >= .milliseconds(50))
        }
    }

    @Test("cancelling the handle cancels the attempt in flight and stops the retries")
    func cancelInFlight() async throws {
        let store = TestStore()
        let attempts = Attempts()
        let handle = store.dispatch(WaitForCancellation(attempts: attempts), retries: 5)
        try await waitFor { attempts.made == 1 }
        handle.cancel()
        await #expect(throws: CancellationError.self) { try await handle.value }
        #expect(attempts.made == 1)
    }

    @Test("cancelling the handle while it waits out the delay stops the retries")
    func cancelDuringDelay() async throws {
        let store = TestStore()
        let attempts = Attempts()
        let handle = store.dispatch(Flaky(attempts: attempts, failures: 9), retries: 5, delay: .seconds(600))
        try await waitFor { attempts.made == 1 }
        handle.cancel()
        // Cancelled while the first attempt was still failing, or while waiting out the delay.
        await #expect(throws: (any Error).self) { try await handle.value }
        #expect(attempts.made == 1)
    }
}

/// Polls `condition` until it holds; the suite's time limit fails a test whose condition never does.
func waitFor(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(1)) }
}
