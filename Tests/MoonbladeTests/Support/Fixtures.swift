import Foundation
import Moonblade
import Synchronization

/// The state most tests use: a counter and a log of what happened, in order.
struct TestState: State, Equatable {
    var count = 0
    var log: [String] = []
}

/// Another state type, to check type mismatches.
struct OtherState: State {}

struct Increment: StateUpdater {
    var by = 1
    func updateState(_ state: inout TestState) { state.count += by }
}

struct Append: StateUpdater {
    let entry: String
    init(_ entry: String) { self.entry = entry }
    func updateState(_ state: inout TestState) { state.log.append(entry) }
}

struct TestError: Error, Equatable {
    let message: String
}

/// Changes the state, then throws: the change must not survive.
struct FailingUpdater: StateUpdater {
    func updateState(_ state: inout TestState) throws {
        state.count += 100
        state.log.append("half-done")
        throw TestError(message: "updater failed")
    }
}

struct OtherStateUpdater: StateUpdater {
    func updateState(_ state: inout OtherState) {}
}

/// Neither an updater nor a side effect.
struct PlainDispatchable: Dispatchable {}

/// A dependency container that records the closures it was given.
final class TestDependencies: SideEffectDependencyContainer {
    let dispatch: AnyDispatch
    let getState: GetState

    init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {
        self.dispatch = dispatch
        self.getState = getState
    }
}

typealias TestStore = Store<TestState, TestDependencies>

/// A thread-safe list of values, for recording from listeners, interceptors and other threads.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `storage` is only touched while holding `lock` (an NSLock, which TSan understands).
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) { lock.withLock { storage.append(value) } }
    var values: [Value] { lock.withLock { storage } }
}

/// Suspends every caller of `arrive()` until `count` callers have arrived: if two side effects both
/// arrive, they overlapped in time; if they ran one after the other, the first would wait forever.
final class Latch: @unchecked Sendable {
    // @unchecked: `arrived` and `waiters` are only touched while holding `lock`.
    private let lock = NSLock()
    private let count: Int
    private var arrived = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        await withCheckedContinuation { continuation in
            let release: [CheckedContinuation<Void, Never>] = lock.withLock {
                arrived += 1
                waiters.append(continuation)
                guard arrived == count else { return [] }
                defer { waiters = [] }
                return waiters
            }
            for waiter in release { waiter.resume() }
        }
    }
}

/// Counts how many updaters run at the same moment, and the most that ever did.
final class OverlapTracker: Sendable {
    private let running = Atomic(0)
    private let maximum = Atomic(0)

    func enter() {
        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
        maximum.max(now, ordering: .sequentiallyConsistent)
    }

    func leave() { running.subtract(1, ordering: .sequentiallyConsistent) }

    var maximumOverlap: Int { maximum.load(ordering: .sequentiallyConsistent) }
}
