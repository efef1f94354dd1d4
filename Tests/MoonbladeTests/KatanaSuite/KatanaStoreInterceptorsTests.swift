import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

private struct StoreInterceptorChainBlocked: Error, Equatable {}

/// An interceptor that appends `name` to `order` and passes every item on.
private func recording(_ name: String, in order: Recorder<String>) -> StoreInterceptor {
    { _ in
        { next in
            { dispatchable in
                order.append(name)
                try next(dispatchable)
            }
        }
    }
}

/// An interceptor that records every item it sees and blocks it by throwing.
private func blocking(seen: Recorder<String>) -> StoreInterceptor {
    { _ in
        { _ in
            { dispatchable in
                seen.append(String(describing: type(of: dispatchable)))
                throw StoreInterceptorChainBlocked()
            }
        }
    }
}

/// The states an interceptor saw around `next`, and the item it intercepted.
private final class Around: Sendable {
    let items = Recorder<String>()
    let before = Recorder<AppState>()
    let after = Recorder<AppState>()

    /// A synchronous interceptor that records each item's type and the states around its `next`.
    var interceptor: StoreInterceptor {
        { context in
            { next in
                { item in
                    self.items.append(String(describing: type(of: item)))
                    self.before.append(context.getAnyState() as! AppState)
                    try next(item)
                    self.after.append(context.getAnyState() as! AppState)
                }
            }
        }
    }
}

/// Katana's `KatanaTests/StoreInterceptorsTests.swift` (Katana 6, and the side effect cases of its
/// Quick version), ported to Moonblade's store.
@Suite("Katana suite: Store interceptors", .hangGuard)
struct KatanaStoreInterceptorsTests {
    // Katana: testStoreInterceptor
    @Test("an interceptor sees the updater and the state before and after next")
    func interceptorSeesStateAroundNext() async throws {
        let todo = Todo(title: "test", id: "id")
        let around = Around()
        let store = KatanaStore(interceptors: [around.interceptor])

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }

        #expect(around.items.values == ["AddTodo"])
        #expect(around.before.values.map(\.todo.todos) == [[]])
        #expect(around.after.values.map(\.todo.todos) == [[todo]])
    }

    // Katana: testStoreInterceptor_whenMultipleInterceptors_areExecutedInOrder
    @Test("interceptors run in array order, the first outermost")
    func interceptorsRunInOrder() async throws {
        let todo = Todo(title: "test", id: "id")
        let order = Recorder<String>()
        let store = KatanaStore(interceptors: ["1", "2", "3"].map { recording($0, in: order) })

        try await bounded { try await store.dispatch(AddTodo(todo: todo)).value }

        #expect(order.values == ["1", "2", "3"])
        #expect(store.state.todo.todos == [todo])
    }

    // Katana: testStoreInterceptor_whenInterceptorThrows_propagationIsBlocked. Katana only checks the
    // state; Moonblade also hands the interceptor's error to the dispatcher.
    @Test("an interceptor that throws blocks the updater, and its error reaches the dispatcher")
    func throwingInterceptorBlocksTheUpdater() async throws {
        let seen = Recorder<String>()
        let store = KatanaStore(interceptors: [blocking(seen: seen)])

        await #expect(throws: StoreInterceptorChainBlocked()) {
            try await bounded { try await store.dispatch(AddTodo(todo: Todo(title: "test", id: "id"))).value }
        }

        #expect(seen.values == ["AddTodo"])
        #expect(store.state.todo.todos.isEmpty)
    }

    // Katana: testStoreInterceptor_whenReturningSideEffect_re. Katana's synchronous interceptor blocks
    // on a dispatch of its own before passing the side effect on. In Moonblade that interceptor is a
    // `SideEffectInterceptor`, which awaits in the side effect's task (see the next test for the
    // synchronous chain); its `next` returns once the side effect has finished, with its value.
    @Test("a side effect interceptor awaits an updater, then the returning side effect's value comes back")
    func sideEffectInterceptorAwaitsADispatch() async throws {
        let todo = Todo(title: "title", id: "id")
        let around = Around()
        let interceptor: SideEffectInterceptor = { context in
            { next in
                { sideEffect in
                    guard sideEffect is ReturningClosureSideEffect else { return try await next(sideEffect) }
                    around.items.append("ReturningClosureSideEffect")
                    try await context.dispatch(AddTodo(todo: todo)).value
                    around.before.append(context.getAnyState() as! AppState)
                    let value = try await next(sideEffect)
                    around.after.append(context.getAnyState() as! AppState)
                    return value
                }
            }
        }
        let store = KatanaStore(sideEffectInterceptors: [interceptor])

        let returned = try await bounded {
            try await store.dispatch(
                ReturningClosureSideEffect { context in
                    try await context.dispatch(AddTodo(todo: todo)).value
                    return context.getState()
                }
            ).value
        }

        #expect(around.items.values == ["ReturningClosureSideEffect"])
        #expect(around.before.values.map(\.todo.todos) == [[todo]])
        #expect(around.after.values.map(\.todo.todos) == [[todo, todo]])
        #expect(returned.todo.todos == [todo, todo])
    }

    // Katana: testStoreInterceptor_whenReturningSideEffect_re, as written (a synchronous interceptor
    // blocking on its dispatch). Moonblade's synchronous chain runs in the store's serial drain, where
    // that wait could never end: it fails at once, naming the wait's place, instead of deadlocking.
    @Test("a synchronous interceptor blocking on its own dispatch fails at once instead of deadlocking")
    func storeInterceptorBlockingOnADispatchFails() async throws {
        let todo = Todo(title: "title", id: "id")
        let ran = Locked(false)
        let interceptor: StoreInterceptor = { context in
            { next in
                { dispatchable in
                    if dispatchable is ReturningClosureSideEffect {
                        try context.dispatch(AddTodo(todo: todo)).wait()
                    }
                    try next(dispatchable)
                }
            }
        }
        let store = KatanaStore(interceptors: [interceptor])

        let error = await #expect(throws: StoreError.self) {
            try await bounded {
                try await store.dispatch(
                    ReturningClosureSideEffect { context in
                        ran.withLock { $0 = true }
                        return context.getState()
                    }
                ).value
            }
        }

        guard case .unservableWait(let place, let processing)? = error else {
            Issue.record("expected unservableWait, got \(String(describing: error))")
            return
        }
        #expect(place.hasPrefix("MoonbladeTests/KatanaStoreInterceptorsTests.swift:"))
        #expect(processing.hasSuffix("ReturningClosureSideEffect"))
        #expect(!ran.withLock { $0 })
        // The updater the interceptor dispatched is not lost: it runs after the side effect was refused.
        #expect(store.state.todo.todos == [todo])
    }

    // Katana (Quick version): side effects, "invokes the middleware". Moonblade's synchronous `next`
    // starts the side effect and returns: the state after it is the state before it.
    @Test("an interceptor sees a side effect and the state around starting it")
    func interceptorSeesSideEffects() async throws {
        let around = Around()
        let store = KatanaStore(interceptors: [around.interceptor])

        try await bounded { try await store.dispatch(ClosureSideEffect(delay: .milliseconds(100))).value }

        #expect(around.items.values == ["ClosureSideEffect"])
        #expect(around.before.values == [AppState()])
        #expect(around.after.values == [AppState()])
    }

    // Katana (Quick version): side effects, "invokes the middleware in the proper order"
    @Test("interceptors see a side effect in array order")
    func interceptorsSeeSideEffectsInOrder() async throws {
        let order = Recorder<String>()
        let store = KatanaStore(interceptors: ["first", "second"].map { recording($0, in: order) })

        try await bounded { try await store.dispatch(ClosureSideEffect()).value }

        #expect(order.values == ["first", "second"])
    }

    // Katana (Quick version): side effects, "allows the middleware to block the propagation"
    @Test("an interceptor that throws blocks the side effect, and its error reaches the dispatcher")
    func throwingInterceptorBlocksTheSideEffect() async throws {
        let seen = Recorder<String>()
        let invoked = Locked(false)
        let store = KatanaStore(interceptors: [blocking(seen: seen)])

        await #expect(throws: StoreInterceptorChainBlocked()) {
            try await bounded {
                try await store.dispatch(
                    ReturningClosureSideEffect { context in
                        invoked.withLock { $0 = true }
                        return context.getState()
                    }
                ).value
            }
        }

        #expect(seen.values == ["ReturningClosureSideEffect"])
        #expect(!invoked.withLock { $0 })
    }
}
