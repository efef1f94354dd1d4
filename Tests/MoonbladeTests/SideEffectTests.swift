import Moonblade
import MoonbladeTestSupport
import Testing

/// Waits at the latch: two of these can only both finish if they run at the same time.
struct MeetAtLatch: SideEffect {
    let latch: Latch
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        await latch.arrive()
    }
}

/// Reads the state, dispatches an updater, awaits it, and reads again.
/// Yields a few times, then appends to the log: work still running after its dispatch returned.
struct AppendLater: SideEffect {
    var entry: String
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        for _ in 0..<100 { await Task.yield() }
        try await context.dispatch(Append(entry)).value
    }
}

struct ReadDispatchRead: ReturningSideEffect {
    func sideEffect(_ context: any AnySideEffectContext) async throws -> [Int] {
        let before = (context.getAnyState() as! TestState).count
        try await context.dispatch(Increment()).value
        let after = (context.getAnyState() as! TestState).count
        return [before, after]
    }
}

struct Square: ReturningSideEffect {
    let value: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int { value * value }
}

/// Awaits a nested returning side effect and returns its value plus one.
struct SquarePlusOne: ReturningSideEffect {
    let value: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
        try await context.dispatch(Square(value: value)).value + 1
    }
}

struct ThrowingSideEffect: SideEffect {
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        throw TestError(message: "side effect failed")
    }
}

/// Returns the identity of the dependency container it was given.
struct DependencyIdentity: SideEffect {
    let identities: Recorder<ObjectIdentifier>
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        identities.append(ObjectIdentifier(context.dependencies))
        identities.append(ObjectIdentifier(context.anyDependencies))
    }
}

/// Written for a store with another dependency type.
struct WrongDependencies: SideEffect {
    func sideEffect(_ context: SideEffectContext<TestState, EmptySideEffectDependencyContainer>) async throws {}
}

/// Records the typed state it sees when it starts.
struct ReadState: SideEffect {
    let seen: Recorder<TestState>
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        seen.append(context.getState())
    }
}

@Suite("Side effects", .hangGuard)
struct SideEffectTests {
    @Test("waitUntilIdle returns once every side effect, and what they dispatched, has finished")
    func waitUntilIdleWaitsForRunningSideEffects() async throws {
        let store = TestStore()
        await store.waitUntilIdle()  // idle at once
        for entry in ["a", "b", "c"] { store.dispatch(AppendLater(entry: entry)) }
        await store.waitUntilIdle()
        #expect(store.state.log.sorted() == ["a", "b", "c"])
    }

    @Test("side effects run concurrently")
    func concurrent() async throws {
        let store = TestStore()
        let latch = Latch(count: 2)
        let first = store.dispatch(MeetAtLatch(latch: latch))
        let second = store.dispatch(MeetAtLatch(latch: latch))
        try await first.value
        try await second.value
    }

    @Test(
        "a side effect sees the state as of its dispatch, and after awaiting a nested dispatch, the state with it"
    )
    func stateVisibility() async throws {
        let store = TestStore()
        store.dispatch(Increment(by: 5))
        let seen = Recorder<TestState>()
        try await store.dispatch(ReadState(seen: seen)).value
        #expect(seen.values.map(\.count) == [5])
        let counts = try await store.dispatch(ReadDispatchRead()).value
        #expect(counts == [5, 6])
    }

    @Test("a returning side effect returns its value, also when nested")
    func returning() async throws {
        let store = TestStore()
        #expect(try await store.dispatch(Square(value: 4)).value == 16)
        #expect(try await store.dispatch(SquarePlusOne(value: 3)).value == 10)
        #expect(try await store.anyDispatch(Square(value: 2)).value as? Int == 4)
    }

    @Test("an error thrown by a side effect reaches .value")
    func throwing() async {
        let store = TestStore()
        await #expect(throws: TestError(message: "side effect failed")) {
            try await store.dispatch(ThrowingSideEffect()).value
        }
    }

    @Test("all side effects of a store share one dependency container")
    func sharedDependencies() async throws {
        let store = TestStore()
        let identities = Recorder<ObjectIdentifier>()
        try await store.dispatch(DependencyIdentity(identities: identities)).value
        try await store.dispatch(DependencyIdentity(identities: identities)).value
        #expect(Set(identities.values) == [ObjectIdentifier(store.dependencies)])
        #expect(identities.values.count == 4)
    }

    @Test("a side effect written for other dependencies fails with typeMismatch")
    func wrongDependencies() async {
        let store = TestStore()
        await #expect(throws: StoreError.self) { try await store.dispatch(WrongDependencies()).value }
    }

    @Test("dependencies dispatch and read state through their closures")
    func dependencyClosures() async throws {
        let store = TestStore()
        _ = try await store.dependencies.dispatch(Increment()).value
        #expect((store.dependencies.getState() as? TestState)?.count == 1)
    }
}
