import Dispatch
import Moonblade
import Testing

@Suite("Listeners")
struct ListenerTests {
    @Test("every listener sees every change in order, with its (old, new) pair")
    func everyChange() {
        let store = TestStore()
        let first = Recorder<String>()
        let second = Recorder<String>()
        _ = store.addListener { old, new in first.append("\(old.count)->\(new.count)") }
        _ = store.addListener { old, new in second.append("\(old.count)->\(new.count)") }
        for _ in 0..<3 { store.dispatch(Increment()) }
        #expect(first.values == ["0->1", "1->2", "2->3"])
        #expect(second.values == first.values)
    }

    @Test("an unsubscribed listener is not called again, also when it unsubscribes itself")
    func unsubscribe() {
        let store = TestStore()
        let calls = Recorder<Int>()
        let unsubscribe = store.addListener { _, new in calls.append(new.count) }
        store.dispatch(Increment())
        unsubscribe()
        unsubscribe()
        store.dispatch(Increment())
        #expect(calls.values == [1])

        let selfRemoving = Recorder<Int>()
        let box = Recorder<StoreUnsubscribe>()
        box.append(
            store.addListener { _, new in
                selfRemoving.append(new.count)
                box.values.first?()
            })
        store.dispatch(Increment())
        store.dispatch(Increment())
        #expect(selfRemoving.values == [3])
    }

    @Test("listeners added and removed from other threads while dispatching see consecutive changes")
    func addAndRemoveDuringDispatch() async {
        let store = TestStore()
        let total = 2_000
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<total { store.dispatch(Increment()) }
            }
            for _ in 0..<4 {
                group.addTask {
                    let pairs = Recorder<(Int, Int)>()
                    let unsubscribe = store.addListener { old, new in pairs.append((old.count, new.count)) }
                    while pairs.values.count < 10 && store.state.count < total {
                        await Task.yield()
                    }
                    unsubscribe()
                    // Changes applied after unsubscribe returned have counts above this.
                    let countAfterUnsubscribe = store.state.count
                    let seen = pairs.values
                    #expect(seen.allSatisfy { $0.1 == $0.0 + 1 })
                    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.1 == $1.0 })
                    #expect(seen.allSatisfy { $0.1 <= countAfterUnsubscribe })
                }
            }
        }
        #expect(store.state.count == total)
    }

    @Test("with listenersAsyncProvider, listeners are called where it runs their work, in its order, each with its pair")
    func asyncProvider() async throws {
        let held = Recorder<@Sendable () -> Void>()
        let store = TestStore(configuration: StoreConfiguration(listenersAsyncProvider: { work in held.append(work) }))
        let pairs = Recorder<[Int]>()
        _ = store.addListener { old, new in pairs.append([old.count, new.count]) }
        try await store.dispatch(Increment()).value
        try await store.dispatch(Increment(by: 2)).value
        // Both dispatches completed, and no listener ran: the provider holds their work.
        #expect(pairs.values.isEmpty)
        #expect(store.state.count == 3)
        let work = held.values
        #expect(work.count == 2)
        for call in work { call() }
        #expect(pairs.values == [[0, 1], [1, 3]])
    }

    @Test("on a serial queue as provider, every listener sees every change in order, on that queue")
    func serialQueueProvider() async throws {
        let queue = DispatchQueue(label: "listeners")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let store = TestStore(configuration: StoreConfiguration(listenersAsyncProvider: { queue.async(execute: $0) }))
        let seen = Recorder<Int>()
        let onQueue = Recorder<Bool>()
        _ = store.addListener { old, new in
            onQueue.append(DispatchQueue.getSpecific(key: key) == true)
            seen.append(old.count)
            seen.append(new.count)
        }
        for _ in 0..<100 { store.dispatch(Increment()) }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(seen.values == (0..<100).flatMap { [$0, $0 + 1] })
        #expect(onQueue.values.count == 100 && onQueue.values.allSatisfy { $0 })
    }

    @Test("the listeners of a transaction's changes are handed to listenersAsyncProvider when it commits, never when it fails")
    func asyncProviderAndTransactions() async throws {
        /// The store, for an interceptor created before it; set once, before anything is dispatched.
        final class StoreBox: @unchecked Sendable { var store: TestStore? }
        let box = StoreBox()
        let held = Recorder<@Sendable () -> Void>()
        let store = TestStore(
            interceptors: [{ _ in { next in { item in try box.store!.transaction { try next(item) } } } }],
            configuration: StoreConfiguration(listenersAsyncProvider: { work in held.append(work) }))
        box.store = store
        let pairs = Recorder<[Int]>()
        _ = store.addListener { old, new in pairs.append([old.count, new.count]) }
        try await store.dispatch(Increment()).value
        await #expect(throws: TestError(message: "updater failed")) { try await store.dispatch(FailingUpdater()).value }
        #expect(held.values.count == 1)
        #expect(pairs.values.isEmpty)
        for call in held.values { call() }
        #expect(pairs.values == [[0, 1]])
    }
}
