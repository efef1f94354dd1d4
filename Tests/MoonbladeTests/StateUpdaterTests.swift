import Dispatch
import Moonblade
import MoonbladeTestSupport
import Testing

/// Records (thread, sequence number) and checks no other updater runs at the same time.
struct Record: StateUpdater {
    let thread: Int
    let sequence: Int
    let tracker: OverlapTracker

    func updateState(_ state: inout TestState) {
        tracker.enter()
        defer { tracker.leave() }
        state.log.append("\(thread):\(sequence)")
    }
}

@Suite("State updaters", .hangGuard)
struct StateUpdaterTests {
    @Test("an uncontended updater is applied before dispatch returns")
    func appliedInline() async throws {
        let store = TestStore()
        store.dispatch(Increment())
        #expect(store.state.count == 1)
        try await store.dispatch(Increment(by: 2)).value
        #expect(store.state.count == 3)
    }

    @Test("updaters from many threads are applied one at a time, in dispatch order per thread")
    func fifoFromManyThreads() {
        let store = TestStore()
        let tracker = OverlapTracker()
        let threads = 4
        let perThread = 500
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for sequence in 0..<perThread {
                store.dispatch(Record(thread: thread, sequence: sequence, tracker: tracker))
            }
        }
        let log = store.state.log
        #expect(log.count == threads * perThread)
        for thread in 0..<threads {
            let sequences = log.filter { $0.hasPrefix("\(thread):") }.map {
                Int($0.split(separator: ":")[1])!
            }
            #expect(sequences == Array(0..<perThread))
        }
        #expect(tracker.maximumOverlap == 1)
    }

    @Test("a throwing updater leaves the state as it was and its error reaches .value")
    func throwingUpdater() async {
        let store = TestStore(stateInitializer: { TestState(count: 1, log: ["before"]) })
        let changes = Recorder<Int>()
        _ = store.addListener { _, new in changes.append(new.count) }
        await #expect(throws: TestError(message: "updater failed")) {
            try await store.dispatch(FailingUpdater()).value
        }
        #expect(store.state == TestState(count: 1, log: ["before"]))
        #expect(changes.values.isEmpty)
    }

    @Test("an updater written for another state type fails with typeMismatch")
    func wrongStateType() async {
        let store = TestStore()
        await #expect(throws: StoreError.self) { try await store.dispatch(OtherStateUpdater()).value }
        #expect(store.state == TestState())
    }

    @Test("an item that is neither updater nor side effect fails with unsupportedDispatchable")
    func unsupported() async {
        let store = TestStore()
        await #expect(throws: StoreError.unsupportedDispatchable(String(reflecting: PlainDispatchable.self))) {
            try await store.anyDispatch(PlainDispatchable()).value
        }
    }

    @Test("anyDispatch runs updaters like dispatch")
    func anyDispatch() async throws {
        let store = TestStore()
        let erased: any Dispatchable = Increment(by: 5)
        _ = try await store.anyDispatch(erased).value
        #expect(store.state.count == 5)
    }

    @Test("dispatching from inside an updater's listener queues the item after the current one")
    func reentrantDispatch() async throws {
        let store = TestStore()
        _ = store.addListener { [weak store] old, new in
            if old.count == 0, new.count == 1 { store?.dispatch(Append("nested")) }
        }
        try await store.dispatch(Increment()).value
        try await store.dispatch(Append("after")).value
        #expect(store.state.log == ["nested", "after"])
    }

    @Test("items queued behind a busy drainer resolve their handles, for every waiter, with value or error")
    func queuedBehindBusyDrainer() async throws {
        let store = TestStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        _ = store.addListener { old, new in
            if old.count == 0, new.count == 1 {
                entered.signal()
                release.wait()
            }
        }
        DispatchQueue.global().async { store.dispatch(Increment()) }
        wait(for: entered)
        // The other thread holds the draining role: these are queued, not run.
        let square = store.dispatch(Square(value: 6))
        let failing = store.dispatch(FailingUpdater())
        let appended = store.dispatch(Append("queued"))
        #expect(store.state.log.isEmpty)
        async let first = square.value
        async let second = square.value
        try await Task.sleep(for: .milliseconds(20))
        release.signal()
        #expect(try await [first, second] == [36, 36])
        await #expect(throws: TestError(message: "updater failed")) { try await failing.value }
        try await appended.value
        #expect(store.state == TestState(count: 1, log: ["queued"]))
    }

    @Test("Katana's updatedState(currentState:) works on its own")
    func updatedState() throws {
        let updated = try Increment(by: 3).updatedState(currentState: TestState(count: 1))
        #expect((updated as? TestState)?.count == 4)
        #expect(throws: StoreError.self) { try Increment().updatedState(currentState: OtherState()) }
    }
}

/// Blocks until `semaphore` is signalled (a synchronous wrapper, callable from async tests).
func wait(for semaphore: DispatchSemaphore) {
    semaphore.wait()
}
