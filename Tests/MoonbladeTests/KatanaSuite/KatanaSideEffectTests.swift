import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

/// Returns `a * b`.
private struct Multiply: ReturningSideEffect {
    let a: Int
    let b: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int { a * b }
}

/// Awaits a nested `Multiply` and multiplies its value by `b` once more.
private struct ReentrantMultiply: ReturningSideEffect {
    let a: Int
    let b: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
        try await context.dispatch(Multiply(a: a, b: b)).value * b
    }
}

private struct Retry: Error {}

/// Adds a to-do and fails until there are two: it succeeds on its second run.
private struct RetryMe: SideEffect {
    let attempts: Recorder<Int>
    func sideEffect(_ context: KatanaContext) async throws {
        attempts.append(attempts.values.count + 1)
        try await context.dispatch(AddTodo(todo: Todo(title: "test", id: "test"))).value
        if context.getState().todo.todos.count < 2 { throw Retry() }
    }
}

/// `Multiply` that adds a to-do and fails until there are two: it returns on its second run.
private struct FailingMultiply: ReturningSideEffect {
    let a: Int
    let b: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
        try await context.dispatch(AddTodo(todo: Todo(title: "New todo", id: UUID().uuidString))).value
        guard let state = context.getAnyState() as? AppState, state.todo.todos.count >= 2 else {
            throw Retry()
        }
        return a * b
    }
}

/// Katana's `KatanaTests/SideEffectTests.swift` (Katana 6, and the returning side effect cases of its
/// Quick version), ported to Moonblade's store. Hydra's `then` chains become `await`s in sequence.
@Suite("Katana suite: Side effects", .hangGuard)
struct KatanaSideEffectTests {
    // Katana: testDispatch_invokesTheSideEffect
    @Test("a dispatched side effect runs")
    func dispatchInvokesTheSideEffect() async throws {
        let store = KatanaStore()
        let invoked = Locked(false)

        try await bounded {
            try await store.dispatch(ClosureSideEffect { _ in invoked.withLock { $0 = true } }).value
        }

        #expect(invoked.withLock { $0 })
    }

    // Katana: testDispatch_invokesTheSideEffectWithTheSameDependencyContainer
    @Test("every side effect gets the same dependency container")
    func sideEffectsShareTheDependencyContainer() async throws {
        let store = KatanaStore()
        let containers = Recorder<ObjectIdentifier>()
        let record = ClosureSideEffect { context in containers.append(ObjectIdentifier(context.dependencies))
        }

        try await bounded {
            try await store.dispatch(record).value
            try await store.dispatch(record).value
        }

        #expect(containers.values.count == 2)
        #expect(Set(containers.values) == [ObjectIdentifier(store.dependencies)])
    }

    // Katana: testDispatch_whenUsingThen_invokesTheSideEffectsInProperOrder (delays of 3 s and 1 s
    // shortened to 300 and 100 ms)
    @Test("side effects awaited one after the other run in that order, however long each takes")
    func awaitedSideEffectsRunInOrder() async throws {
        let store = KatanaStore()
        let results = Recorder<String>()

        try await bounded {
            try await store.dispatch(
                ClosureSideEffect(delay: .milliseconds(300)) { _ in results.append("1") }
            ).value
            try await store.dispatch(
                ClosureSideEffect(delay: .milliseconds(100)) { _ in results.append("2") }
            ).value
            try await store.dispatch(ClosureSideEffect { _ in results.append("3") }).value
        }

        #expect(results.values == ["1", "2", "3"])
    }

    // Katana: testDispatch_whenDispatchingFromSideEffect_dispatchesCorrectly
    @Test("a side effect that awaits a side effect it dispatched finishes after it")
    func sideEffectDispatchedFromSideEffect() async throws {
        let store = KatanaStore()
        let results = Recorder<String>()
        let first = ClosureSideEffect(delay: .milliseconds(300)) { _ in results.append("1") }
        let second = ClosureSideEffect(delay: .milliseconds(100)) { context in
            try await context.dispatch(first).value
            results.append("2")
        }

        try await bounded {
            try await store.dispatch(second).value
            try await store.dispatch(ClosureSideEffect { _ in results.append("3") }).value
        }

        #expect(results.values == ["1", "2", "3"])
    }

    // Katana: testDispatch_whenDispatchingBothStateUpdatersAndSideEffects_handlesAllOfThem
    @Test("side effects see every updater awaited before them, and none after")
    func updatersAndSideEffectsMix() async throws {
        let todo = Todo(title: "title", id: "id")
        let user = User(username: "username")
        let store = KatanaStore()
        let states = Recorder<AppState>()
        let readState = ClosureSideEffect { context in states.append(context.getState()) }

        try await bounded {
            try await store.dispatch(AddTodo(todo: todo)).value
            try await store.dispatch(readState).value
            try await store.dispatch(AddUser(user: user)).value
            try await store.dispatch(readState).value
        }

        try #require(states.values.count == 2)
        #expect(states.values[0].todo.todos == [todo])
        #expect(states.values[0].user.users.isEmpty)
        #expect(states.values[1].todo.todos == [todo])
        #expect(states.values[1].user.users == [user])
    }

    // Katana: testGetState_returnsTheUpdatedState
    @Test("getState in a side effect includes an updater it dispatched and awaited")
    func getStateReturnsTheUpdatedState() async throws {
        let todo = Todo(title: "title", id: "id")
        let store = KatanaStore()
        let states = Recorder<AppState>()

        try await bounded {
            try await store.dispatch(
                ClosureSideEffect { context in
                    states.append(context.getState())
                    try await context.dispatch(AddTodo(todo: todo)).value
                    states.append(context.getState())
                }
            ).value
        }

        try #require(states.values.count == 2)
        #expect(states.values[0].todo.todos.isEmpty)
        #expect(states.values[1].todo.todos == [todo])
    }

    // Katana: testDispatch_propagatesErrors
    @Test("an error thrown by a side effect reaches whoever awaits its dispatch")
    func dispatchPropagatesErrors() async throws {
        let expected = NSError(domain: "Test error", code: -1)
        let store = KatanaStore()

        let error = await #expect(throws: NSError.self) {
            try await bounded { try await store.dispatch(ClosureSideEffect { _ in throw expected }).value }
        }
        #expect(error?.domain == expected.domain)
        #expect(error?.code == expected.code)
    }

    // Katana: testReturningSideEffect
    @Test("a returning side effect's value comes back through its dispatch")
    func returningSideEffect() async throws {
        let store = KatanaStore()
        let result = try await bounded { try await store.dispatch(Multiply(a: 5, b: 2)).value }
        #expect(result == 10)
    }

    // Katana: testReturningSideEffect_whenNestedSideEffect_returnsComputedValue
    @Test("a returning side effect can await the value of another one it dispatched")
    func nestedReturningSideEffect() async throws {
        let store = KatanaStore()
        let result = try await bounded { try await store.dispatch(ReentrantMultiply(a: 5, b: 2)).value }
        #expect(result == 20)
    }

    // Katana (Quick version): "can return values from the state around state updater invocation"
    @Test("a returning side effect can return the state after an updater it dispatched")
    func returningTheStateAfterAnUpdater() async throws {
        let todo = Todo(title: "title", id: "id")
        let store = KatanaStore()
        let result = try await bounded {
            try await store.dispatch(
                ReturningClosureSideEffect { context in
                    try await context.dispatch(AddTodo(todo: todo)).value
                    return context.getState()
                }
            ).value
        }
        #expect(result.todo.todos == [todo])
    }

    // Katana: testRetry_retriesDispatchable. Hydra's `.retry(2)` counts every attempt: `retries: 1`.
    @Test("a retried side effect that fails once runs again and succeeds")
    func retryRetriesTheDispatchable() async throws {
        let store = KatanaStore()
        let attempts = Recorder<Int>()

        try await bounded { try await store.dispatch(RetryMe(attempts: attempts), retries: 1).value }

        #expect(attempts.values == [1, 2])
        #expect(store.state.todo.todos.count == 2)
    }

    // Katana: testRetry_whenReturningSideEffect_returnsRetriedResult
    @Test("a retried returning side effect returns the value of the attempt that succeeded")
    func retryReturnsTheRetriedResult() async throws {
        let store = KatanaStore()

        let result = try await bounded {
            try await store.dispatch(FailingMultiply(a: 5, b: 2), retries: 1).value
        }

        #expect(result == 10)
        #expect(store.state.todo.todos.count == 2)
    }

    // Hydra's `.retry(n)` (the error side Katana's suite leaves out): n attempts in all, then the last error.
    @Test("a side effect that keeps failing is tried retries + 1 times and its error comes back")
    func retryGivesUpWithTheLastError() async throws {
        let store = KatanaStore()
        let attempts = Recorder<Int>()
        let failing = ClosureSideEffect { _ in
            attempts.append(attempts.values.count + 1)
            throw NSError(domain: "attempt", code: attempts.values.count)
        }

        let error = await #expect(throws: NSError.self) {
            try await bounded { try await store.dispatch(failing, retries: 2).value }
        }

        #expect(attempts.values == [1, 2, 3])
        #expect(error?.code == 3)
    }

    // Hydra's `.retry(0)` rejects with an error; its port, `retries: -1`, stopped the program
    // (a precondition) before the Katana suite was ported.
    @Test("a negative retry count fails the dispatch with a clear error and dispatches nothing")
    func negativeRetriesFail() async throws {
        let store = KatanaStore()
        let attempts = Recorder<Int>()

        await #expect(throws: StoreError.invalidRetryCount(-1)) {
            try await bounded { try await store.dispatch(RetryMe(attempts: attempts), retries: -1).value }
        }
        await #expect(throws: StoreError.invalidRetryCount(-2)) {
            try await bounded {
                try await store.dispatch(AddTodo(todo: Todo(title: "test", id: "test")), retries: -2).value
            }
        }
        await #expect(throws: StoreError.invalidRetryCount(-1)) {
            try await bounded { try await store.dispatch(Multiply(a: 5, b: 2), retries: -1).value }
        }
        await #expect(throws: StoreError.invalidRetryCount(-1)) {
            try await bounded {
                try await store.anyDispatch(AddTodo(todo: Todo(title: "test", id: "test")), retries: -1).value
            }
        }

        #expect(attempts.values.isEmpty)
        #expect(store.state == AppState())
        #expect("\(StoreError.invalidRetryCount(-1))".contains("retries: n - 1"))
        // The store keeps working.
        #expect(try await bounded { try await store.dispatch(Multiply(a: 5, b: 2), retries: 1).value } == 10)
    }
}
