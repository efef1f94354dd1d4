import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

/// Adds a user whenever an observer rule builds it.
private struct StateChangeAddUser: StateUpdater, StateObserverDispatchable, DispatchObserverDispatchable,
    NotificationObserverDispatchable, OnStartObserverDispatchable
{
    init?(prevState: any State, currentState: any State) {}
    init?(dispatchedItem: any Dispatchable, prevState: any State, currentState: any State) {}
    init?(notification: Notification) {}
    init?() {}

    func updateState(_ state: inout AppState) { state.user.users.append(User(username: "the username")) }
}

/// Would add a user, but every observer initializer refuses: the rule must skip it.
private struct NilStateChangeAddUser: StateUpdater, StateObserverDispatchable, DispatchObserverDispatchable,
    NotificationObserverDispatchable, OnStartObserverDispatchable
{
    init?(prevState: any State, currentState: any State) { return nil }
    init?(dispatchedItem: any Dispatchable, prevState: any State, currentState: any State) { return nil }
    init?(notification: Notification) { return nil }
    init?() { return nil }

    func updateState(_ state: inout AppState) { state.user.users.append(User(username: "the username")) }
}

/// Adds a user for a notification, counting how often a notification observer built it; used by
/// one test only, so the count is that test's.
private struct CountedNotificationAddUser: StateUpdater, NotificationObserverDispatchable {
    static let built = Locked(0)

    init?(notification: Notification) { Self.built.withLock { $0 += 1 } }

    func updateState(_ state: inout AppState) { state.user.users.append(User(username: "the username")) }
}

/// Katana's three cases for the items of a rule, with how many users they add: one item, the same
/// item twice, and an item whose initializer returns nil before one.
private func katanaCases<Item>(_ item: Item, skipped: Item) -> [([Item], Int)] {
    [([item], 1), ([item, item], 2), ([skipped, item], 1)]
}

private let testNotification = Notification.Name("KatanaObserverInterceptorTests.notification")

/// The two ways Katana's suite writes a state change rule: typed, or on `any State` with casts.
enum StateChangeRule: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case typed, untyped

    var testDescription: String { rawValue }

    /// A rule that holds when the number of to-dos changed.
    var todosCountChanged: ObserverInterceptor.ObserverType.StateChangeObserver {
        switch self {
        case .typed:
            ObserverInterceptor.ObserverType.typedStateChange { (prev: AppState, current: AppState) in
                prev.todo.todos.count != current.todo.todos.count
            }
        case .untyped:
            { prev, current in
                guard let prev = prev as? AppState, let current = current as? AppState else { return false }
                return prev.todo.todos.count != current.todo.todos.count
            }
        }
    }
}

/// Katana's `KatanaTests/ObserverInterceptorTests.swift`, ported to Moonblade's store. Katana's tests
/// that differ only in the kind of state change rule (typed or on `any State`) or in the items listed
/// are the cases of one parameterized test here.
/// Katana polls (`waitFor`) for the observed items; Moonblade queues them right behind the item that
/// triggered them, and a store at rest drains its queue on the dispatching thread before the dispatch
/// returns, so the port (each test's store its own, at rest) checks the state at once.
@Suite("Katana suite: Observer interceptor", .hangGuard)
struct KatanaObserverInterceptorTests {
    private let todo = Todo(title: "title", id: "id")

    // MARK: State change

    /// Dispatches `AddTodo` to a store observing `rules`, checks it was applied, and returns how many
    /// users the rules' items added.
    private func usersAdded(by rules: [ObserverInterceptor.ObserverType]) async throws -> Int {
        let store = KatanaStore(interceptors: [ObserverInterceptor.observe(rules)])
        try await bounded { [todo] in try await store.dispatch(AddTodo(todo: todo)).value }
        #expect(store.state.todo.todos == [todo])
        return store.state.user.users.count
    }

    // Katana: testObserveOnStateChange_whenUsingAppStateChangeObserver_dispatchesDispatchable,
    // testObserveOnStateChange_whenUsingStateChangeObserver_dispatchesDispatchable,
    // testObserveOnStateChange_whenUsingAppStateChangeObserverAndMultipleDispatchables_dispatchesAllOfThem,
    // testObserveOnStateChange_whenUsingStateChangeObserverAndMultipleDispatchables_dispatchesAllOfThem,
    // testObserveOnStateChange_whenUsingAppStateChangeObserverAndNillableInitDispatchables_discardsNilOnes,
    // testObserveOnStateChange_whenUsingStateChangeObserverAndNillableInitDispatchables_discardsNilOnes
    @Test(
        "a state change rule that holds dispatches its non-nil items, a type listed thrice three times",
        arguments: StateChangeRule.allCases,
        [
            ([StateChangeAddUser.self], 1),
            ([StateChangeAddUser.self, StateChangeAddUser.self, StateChangeAddUser.self], 3),
            ([NilStateChangeAddUser.self, StateChangeAddUser.self], 1),
        ] as [([any StateObserverDispatchable.Type], Int)])
    func onStateChangeDispatches(rule: StateChangeRule, listed: ([any StateObserverDispatchable.Type], Int))
        async throws
    {
        let (items, users) = listed
        #expect(try await usersAdded(by: [.onStateChange(rule.todosCountChanged, items)]) == users)
    }

    // Katana: testObserveOnStateChange_whenUsingAppStateChangeObserver_doesNotInterceptSideEffects,
    // testObserveOnStateChange_whenUsingStateChangeObserver_doesNotInterceptSideEffects
    @Test("a state change rule is not evaluated for side effects", arguments: StateChangeRule.allCases)
    func onStateChangeIgnoresSideEffects(rule: StateChangeRule) async throws {
        let evaluated = Locked(0)
        let predicate = rule.todosCountChanged
        let store = KatanaStore(interceptors: [
            ObserverInterceptor.observe([
                .onStateChange(
                    { prev, current in
                        evaluated.withLock { $0 += 1 }
                        return predicate(prev, current)
                    }, [])
            ])
        ])

        try await bounded { try await store.dispatch(ClosureSideEffect()).value }

        #expect(evaluated.withLock { $0 } == 0)
    }

    // MARK: Dispatch

    // Katana: testObserveOnDispatch_dispatchesDispatchables,
    // testObserveOnDispatch_whenMultipleDispatchables_dispatchesAllOfThem,
    // testObserveOnDispatch_whenNillableInitDispatchables_discardsNilOnes
    @Test(
        "a dispatch rule dispatches every non-nil item it lists after the observed type",
        arguments: katanaCases(
            StateChangeAddUser.self as any DispatchObserverDispatchable.Type,
            skipped: NilStateChangeAddUser.self))
    func onDispatchDispatches(items: [any DispatchObserverDispatchable.Type], users: Int) async throws {
        #expect(try await usersAdded(by: [.onDispatch(AddTodo.self, items)]) == users)
    }

    // Katana: testObserveOnDispatch_whenMultipleObservers_observesAllOfThem (fire and forget, as Katana)
    @Test("every dispatch rule that matches fires")
    func onDispatchRulesAllFire() async throws {
        let store = KatanaStore(interceptors: [
            ObserverInterceptor.observe([
                .onDispatch(AddTodo.self, [StateChangeAddUser.self]),
                .onDispatch(AddTodo.self, [StateChangeAddUser.self]),
            ])
        ])

        store.dispatch(AddTodo(todo: todo))

        await waitUntil(timeout: .seconds(10)) { store.state.user.users.count == 2 }
        #expect(store.state.todo.todos == [todo])
    }

    // Katana's suite observes only updaters. Katana runs a side effect to its end inside the chain, so
    // there a dispatch rule on a side effect fires after it finished; Moonblade's synchronous chain only
    // starts it, so the rule fires once it has started, with the state as it started.
    @Test("a dispatch rule observing a side effect fires when it has started, with the state then")
    func onDispatchOfASideEffectFiresWhenItStarts() async throws {
        let release = Latch(count: 2)
        let store = KatanaStore(interceptors: [
            ObserverInterceptor.observe([.onDispatch(ClosureSideEffect.self, [StateChangeAddUser.self])])
        ])

        let running = store.dispatch(
            ClosureSideEffect { context in
                await release.arrive()
                try await context.dispatch(AddTodo(todo: Todo(title: "late", id: "late"))).value
            })
        // The rule has fired while the side effect still waits at the latch.
        #expect(store.state.user.users.count == 1)
        #expect(store.state.todo.todos.isEmpty)
        await release.arrive()
        try await bounded { try await running.value }
        #expect(store.state.user.users.count == 1)
        #expect(store.state.todo.todos.count == 1)
    }

    // MARK: Notification

    // Katana: testObserveOnNotification_dispatchesDispatchables,
    // testObserveOnNotification_whenMultipleDispatchables_dispatchesAllOfThem,
    // testObserveOnNotification_whenNillableInitDispatchables_discardsNilOnes
    @Test(
        "a notification rule dispatches its non-nil items when the notification is posted",
        arguments: katanaCases(
            StateChangeAddUser.self as any NotificationObserverDispatchable.Type,
            skipped: NilStateChangeAddUser.self))
    func onNotificationDispatches(items: [any NotificationObserverDispatchable.Type], users: Int) async throws {
        let center = NotificationCenter()
        let store = KatanaStore(interceptors: [
            ObserverInterceptor.observe(
                [.onNotification(testNotification, items)], notificationCenter: center)
        ])
        #expect(store.isReady)
        #expect(store.state.user.users.isEmpty)

        center.post(name: testNotification, object: nil)

        await waitUntil(timeout: .seconds(10)) { store.state.user.users.count == users }
        #expect(store.state.user.users.count == users)
    }

    // MARK: Start

    // Katana: testObserveOnStart_dispatchesDispatchables,
    // testObserveOnStart_whenMultipleDispatchables_dispatchesAllOfThem,
    // testObserveOnStart_whenNillableInitDispatchables_discardsNilOnes
    @Test(
        "a start rule dispatches its non-nil items before the store is returned",
        arguments: katanaCases(
            StateChangeAddUser.self as any OnStartObserverDispatchable.Type,
            skipped: NilStateChangeAddUser.self))
    func onStartDispatches(items: [any OnStartObserverDispatchable.Type], users: Int) {
        let store = KatanaStore(interceptors: [ObserverInterceptor.observe([.onStart(items)])])

        #expect(store.state.user.users.count == users)
        #expect(store.state.todo.todos.isEmpty)
    }

    // MARK: Deallocation

    // Katana: testObserveOnNotification_whenStoreIsDeallocated_unregistersObserver. Katana counts the
    // observers of a NotificationCenter subclass; on Linux its methods cannot be overridden, so the port
    // counts what a live observer would do: build the item for the notification.
    @Test("releasing the store removes its notification observers")
    func releasingTheStoreRemovesObservers() async throws {
        let center = NotificationCenter()
        let name = Notification.Name("KatanaObserverInterceptorTests.release")
        var store: KatanaStore? = KatanaStore(interceptors: [
            ObserverInterceptor.observe(
                [.onNotification(name, [CountedNotificationAddUser.self])], notificationCenter: center)
        ])

        center.post(name: name, object: nil)
        await waitUntil(timeout: .seconds(10)) { store?.state.user.users.count == 1 }
        #expect(CountedNotificationAddUser.built.withLock { $0 } == 1)

        store = nil
        center.post(name: name, object: nil)
        #expect(CountedNotificationAddUser.built.withLock { $0 } == 1)
    }
}
