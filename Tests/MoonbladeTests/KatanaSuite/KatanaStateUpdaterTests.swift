import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

/// Adds a to-do slowly: it says it has started, then holds the store's serial drain for `waitingTime`.
private struct AddTodoWithDelay: StateUpdater {
    let todo: Todo
    let waitingTime: Duration
    var started: Locked<Bool>? = nil

    func updateState(_ state: inout AppState) {
        started?.withLock { $0 = true }
        // Only a test may block an updater: it shows that the items behind it wait their turn.
        Thread.sleep(
            forTimeInterval: Double(waitingTime.components.seconds)
                + Double(waitingTime.components.attoseconds) / 1e18)
        state.todo.todos.append(todo)
    }
}

/// Katana's `KatanaTests/StateUpdaterTests.swift`, ported to Moonblade's store.
@Suite("Katana suite: State updaters", .hangGuard)
struct KatanaStateUpdaterTests {
    // Katana: testDispatch_invokesTheStateUpdater
    @Test("a dispatched state updater changes the state")
    func dispatchInvokesTheStateUpdater() async throws {
        let todo = Todo(title: "test", id: "ABC")
        let store = KatanaStore()

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }

        #expect(store.state.todo.todos == [todo])
    }

    // Katana: testDispatch_whenChained_areInvokedInOrder
    @Test("updaters dispatched one after the other are applied in order, each seen once awaited")
    func chainedUpdatersAreAppliedInOrder() async throws {
        let todo = Todo(title: "test", id: "ABC")
        let user = User(username: "the_username")
        let store = KatanaStore()

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }
        #expect(store.state.todo.todos == [todo])
        #expect(store.state.user.users.isEmpty)

        try await bounded { try await store.dispatch(AddUser(user: user)).value }
        #expect(store.state.todo.todos == [todo])
        #expect(store.state.user.users == [user])
    }

    // Katana: testDispatch_whenNotChained_areInvokedInOrder. The slow first updater runs on a thread
    // of its own; the faster ones are dispatched while it holds the drain and must still come after it.
    @Test("updaters dispatched without waiting are applied serially, in dispatch order")
    func unchainedUpdatersAreAppliedSerially() async throws {
        let todos = (1...3).map { Todo(title: "test\($0)", id: "\($0)") }
        let store = KatanaStore()
        let started = Locked(false)

        // A thread, not a task: the dispatching thread applies the updater inline and so blocks.
        let first = Locked<DispatchHandle<Void>?>(nil)
        Thread {
            let handle = store.dispatch(
                AddTodoWithDelay(todo: todos[0], waitingTime: .milliseconds(300), started: started))
            first.withLock { $0 = handle }
        }.start()
        await waitUntil(timeout: .seconds(10)) { started.withLock { $0 } }
        let second = store.dispatch(AddTodoWithDelay(todo: todos[1], waitingTime: .milliseconds(200)))
        let third = store.dispatch(AddTodoWithDelay(todo: todos[2], waitingTime: .zero))

        try await bounded {
            while first.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(1)) }
            try await first.withLock { $0 }!.value
            try await second.value
            try await third.value
        }
        #expect(store.state.todo.todos == todos)
    }
}
