import Moonblade
import MoonbladeTestSupport
import Synchronization
import Testing

/// What a ``EndsItsDispatch`` does with its ending before it goes on.
private enum Ending: Sendable {
    case returning, throwing, none
}

private struct EndedEarly: Error, Equatable {}

/// Ends its dispatch as `ending` says, then waits until `release` is signalled (or it is cancelled)
/// and returns "late"; run without its ending (under side effect interceptors), returns "plain".
private struct EndsItsDispatch: ReturningSideEffect, SelfEndingSideEffect {
    let ending: Ending
    let release: AsyncStream<Void>
    let started: Latch

    func sideEffect(_ context: any AnySideEffectContext) async throws -> String { "plain" }

    func anySideEffect(_ context: any AnySideEffectContext, ending dispatch: SideEffectEnding) async throws -> any Sendable {
        switch ending {
        case .returning: dispatch.end(returning: "early")
        case .throwing: dispatch.end(throwing: EndedEarly())
        case .none: break
        }
        await started.arrive()
        for await _ in release { break }
        try Task.checkCancellation()
        return "late"
    }
}

/// A side effect that ends its own dispatch: its handle reports the first ending, whether the side
/// effect's own or its task's, and the store stops counting it then, while its task may go on.
@Suite("Side effects that end their own dispatch", .hangGuard)
struct SelfEndingSideEffectTests {
    let release: AsyncStream<Void>
    let releasing: AsyncStream<Void>.Continuation

    init() {
        (release, releasing) = AsyncStream.makeStream(of: Void.self)
    }

    /// The side effect; the test waits for it to start with `started.arrive()` when `awaited`.
    fileprivate func sideEffect(_ ending: Ending, awaited: Bool = false) -> EndsItsDispatch {
        EndsItsDispatch(ending: ending, release: release, started: Latch(count: awaited ? 2 : 1))
    }

    @Test("the handle has the value it was ended with while the task goes on, and the store is idle")
    func endedWithAValue() async throws {
        let store = TestStore()
        let handle = store.dispatch(sideEffect(.returning))
        #expect(try await handle.value == "early")
        await store.waitUntilIdle()  // would wait for the release were the task counted
        releasing.yield()
        #expect(try await handle.value == "early", "a later return changes nothing")
    }

    @Test("the handle throws the error it was ended with, whatever the task returns later")
    func endedWithAnError() async throws {
        let store = TestStore()
        let handle = store.dispatch(sideEffect(.throwing))
        await #expect(throws: EndedEarly()) { try await handle.value }
        releasing.yield()
        await store.waitUntilIdle()
        await #expect(throws: EndedEarly()) { try await handle.value }
    }

    @Test("a side effect that does not end its dispatch ends it with what its task returns")
    func endedByItsTask() async throws {
        let store = TestStore()
        let effect = sideEffect(.none, awaited: true)
        let handle = store.dispatch(effect)
        await effect.started.arrive()
        releasing.yield()
        #expect(try await handle.value == "late")
    }

    @Test("cancelling the handle cancels the side effect's task, which ends the dispatch with its error")
    func cancellingReachesTheTask() async throws {
        let store = TestStore()
        let effect = sideEffect(.none, awaited: true)
        let handle = store.dispatch(effect)
        await effect.started.arrive()
        handle.cancel()
        releasing.yield()
        await #expect(throws: CancellationError.self) { try await handle.value }
    }

    @Test("under side effect interceptors it runs as any side effect, without its ending")
    func underInterceptors() async throws {
        let trace = Recorder<String>()
        let store = TestStore(sideEffectInterceptors: [tracingSideEffects("async", into: trace)])
        #expect(try await store.dispatch(sideEffect(.returning)).value == "plain")
        #expect(trace.values == ["async before", "async after"])
    }
}
