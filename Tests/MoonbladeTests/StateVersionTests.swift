import Dispatch
import Moonblade
import MoonbladeTestSupport
import Testing

/// The store's state version: the stamp caches of the state (the plugin host's copy in Lua) check
/// themselves against.
@Suite("State version", .hangGuard)
struct StateVersionTests {
    @Test("every stored state advances the version once; a failing updater stores nothing")
    func advancesOncePerStoredState() async throws {
        let store = TestStore()
        #expect(store.stateVersion == 0)
        store.dispatch(Increment())
        try await store.dispatch(Increment(by: 2)).value
        #expect(store.stateVersion == 2)
        await #expect(throws: TestError(message: "updater failed")) { try await store.dispatch(FailingUpdater()).value }
        #expect(store.stateVersion == 2)
    }

    @Test("a transaction rolled back stores the original state again: a version of its own")
    func aRollbackIsAVersion() async throws {
        struct Refused: Error {}
        let store = TestStore(interceptors: [
            { context in
                { next in
                    { item in
                        try context.transaction {
                            try next(item)
                            throw Refused()
                        }
                    }
                }
            }
        ])
        await #expect(throws: Refused.self) { try await store.dispatch(Increment()).value }
        #expect(store.state.count == 0)
        #expect(store.stateVersion == 2)
    }

    @Test("the counter an interceptor's context hands out reads the store's version, from any thread")
    func theContextsCounterFollowsTheStore() async throws {
        let counters = Recorder<StateVersionCounter>()
        let store = TestStore(interceptors: [
            { context in
                counters.append(context.stateVersions)
                return { next in next }
            }
        ])
        let counter = try #require(counters.values.first)
        let dispatches = 200
        let readings = Recorder<[UInt64]>()
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            if thread == 0 {
                for _ in 0..<dispatches { store.dispatch(Increment()) }
            } else {
                readings.append((0..<dispatches).map { _ in counter.value })
            }
        }
        try await store.dispatch(Increment()).value
        #expect(counter.value == UInt64(dispatches + 1))
        #expect(counter.value == store.stateVersion)
        for reading in readings.values {
            #expect(reading == reading.sorted(), "a reader saw the version go back")
        }
    }
}
