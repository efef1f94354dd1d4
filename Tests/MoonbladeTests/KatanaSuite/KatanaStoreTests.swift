import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

/// Katana's `KatanaTests/StoreTests.swift`, ported to Moonblade's store.
@Suite("Katana suite: Store", .hangGuard)
struct KatanaStoreTests {
    // Katana: testDefaultInit_initializesEmptyState (Katana polls `isReady`; Moonblade's store is ready
    // when `init` returns, so it is checked at once).
    @Test("a store built with the defaults is ready at once and holds the empty state")
    func defaultInitInitializesEmptyState() {
        let store = KatanaStore()
        #expect(store.isReady)
        #expect(store.state == AppState())
    }

    // Katana: testListeners_areInvokedOnStateChange
    @Test("a listener is called with the state before and after the change")
    func listenersAreInvokedOnStateChange() async throws {
        let todo = Todo(title: "title", id: "id")
        let store = KatanaStore()
        let calls = Locked<[(old: AppState, new: AppState)]>([])
        _ = store.addListener { old, new in calls.withLock { $0.append((old, new)) } }

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }

        let seen = calls.withLock { $0 }
        try #require(seen.count == 1)
        #expect(seen[0].old.todo.todos == [])
        #expect(seen[0].new.todo.todos == [todo])
    }

    // Katana: testUnsubscribeListeners_areInvokedOnStateChange
    @Test("an unsubscribed listener is not called for the changes after it")
    func unsubscribedListenerIsNotCalledAgain() async throws {
        let todo = Todo(title: "title", id: "id")
        let store = KatanaStore()
        let calls = Locked<[(old: AppState, new: AppState)]>([])
        let unsubscribe = store.addListener { old, new in calls.withLock { $0.append((old, new)) } }

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }
        unsubscribe()
        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }

        let seen = calls.withLock { $0 }
        try #require(seen.count == 1)
        #expect(seen[0].old.todo.todos == [])
        #expect(seen[0].new.todo.todos == [todo])
        #expect(store.state.todo.todos == [todo, todo])
    }

    // Katana: testUnsubscribeListeners_areInvokedOnStateChange, with Katana's default configuration:
    // listeners run later, where the provider (the main queue, in Katana) runs them. Katana reads the
    // listeners when it runs them, so one unsubscribed between a change and that moment is not called.
    @Test("with a listener provider, a listener unsubscribed before the provider runs is not called")
    func unsubscribedBeforeTheProviderRunsIsNotCalled() async throws {
        let held = Recorder<@Sendable () -> Void>()
        let store = KatanaStore(
            configuration: StoreConfiguration(listenersAsyncProvider: { held.append($0) }))
        let removedCalls = Locked(0)
        let keptCalls = Locked<[(old: AppState, new: AppState)]>([])
        let unsubscribe = store.addListener { _, _ in removedCalls.withLock { $0 += 1 } }
        _ = store.addListener { old, new in keptCalls.withLock { $0.append((old, new)) } }
        let todo = Todo(title: "title", id: "id")

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }
        unsubscribe()
        for work in held.values { work() }

        #expect(removedCalls.withLock { $0 } == 0)
        let kept = keptCalls.withLock { $0 }
        try #require(kept.count == 1)
        #expect(kept[0].old.todo.todos == [] && kept[0].new.todo.todos == [todo])
    }

    // Katana's listener work holds its store weakly and does nothing once the store is gone.
    @Test("with a listener provider, work run after the store was released calls no listener")
    func providerWorkAfterReleaseCallsNothing() async throws {
        let held = Recorder<@Sendable () -> Void>()
        let calls = Locked(0)
        weak var released: KatanaStore?
        do {
            let store = KatanaStore(
                configuration: StoreConfiguration(listenersAsyncProvider: { held.append($0) }))
            _ = store.addListener { _, _ in calls.withLock { $0 += 1 } }
            try await bounded {
                try await store.dispatch(AddTodo(todo: Todo(title: "title", id: "id"))).value
            }
            released = store
        }

        #expect(released == nil, "held listener work must not keep the store alive")
        for work in held.values { work() }
        #expect(held.values.count == 1)
        #expect(calls.withLock { $0 } == 0)
    }

    // Katana: testStoreListener_whenMultipleConcurrentOperations_itWillNotCrash. Katana blocks each
    // operation on Hydra's `await`; the port blocks on `wait()`. Katana also moves the state
    // initializer to a queue (`stateInitializerAsyncProvider`), a knob Moonblade does not take.
    @Test("listeners added and removed by concurrent blocking dispatchers, with a listener queue")
    func concurrentListenerOperationsDoNotCrash() async throws {
        let listenerQueue = DispatchQueue(label: "KatanaStoreTests.listeners")
        let store = KatanaStore(
            configuration: StoreConfiguration(listenersAsyncProvider: { listenerQueue.async(execute: $0) }))
        let failures = Locked<[String]>([])

        let finished = await onThread(timeout: .seconds(20).allowingForSanitizers) {
            let operations = OperationQueue()
            for index in 0..<10 {
                operations.addOperation {
                    let unsubscribe = store.addListener { _, _ in }
                    do {
                        try store.dispatch(AddTodo(todo: Todo(title: "Title", id: "\(index)"))).wait()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    unsubscribe()
                }
            }
            operations.waitUntilAllOperationsAreFinished()
            return true
        }

        #expect(finished == true, "the operations did not finish in time")
        #expect(failures.withLock { $0 } == [])
        #expect(Set(store.state.todo.todos.map(\.id)) == Set((0..<10).map { "\($0)" }))
    }

    // Katana's Store.init contract (no test of its own in Katana's suite): the state initializer's
    // state, and items dispatched by the dependency container while it is built, run once ready.
    @Test("the state initializer and the dependencies initializer's early dispatches are honoured")
    func initializersAreHonoured() {
        let early = Todo(title: "early", id: "0")
        let initial = AppState(todo: TodoState(todos: [Todo(title: "initial", id: "i")]))
        let store = KatanaStore(
            stateInitializer: { initial },
            dependenciesInitializer: { dispatch, getState in
                _ = dispatch(AddTodo(todo: early))
                return TestDependenciesContainer(dispatch: dispatch, getState: getState)
            })
        #expect(store.isReady)
        #expect(store.state.todo.todos == initial.todo.todos + [early])
    }
}
