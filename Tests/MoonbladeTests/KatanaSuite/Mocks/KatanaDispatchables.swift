import Moonblade

// The items Katana's own suite dispatches (KatanaTests/Mocks/Dispatchables.swift).

/// The context the Katana suite's typed side effects get.
typealias KatanaContext = SideEffectContext<AppState, TestDependenciesContainer>

struct AddTodo: StateUpdater {
    let todo: Todo
    func updateState(_ state: inout AppState) { state.todo.todos.append(todo) }
}

struct AddUser: StateUpdater {
    let user: User
    func updateState(_ state: inout AppState) { state.user.users.append(user) }
}

/// Waits `delay` (through the dependencies, as Katana's does), then runs `body`.
struct ClosureSideEffect: SideEffect {
    var delay: Duration = .zero
    var body: @Sendable (_ context: KatanaContext) async throws -> Void = { _ in }

    func sideEffect(_ context: KatanaContext) async throws {
        if delay != .zero { try await context.dependencies.delay(of: delay) }
        try await body(context)
    }
}

/// Runs `body` and returns what it returns: a state, in Katana's suite.
struct ReturningClosureSideEffect: ReturningSideEffect {
    var body: @Sendable (_ context: KatanaContext) async throws -> AppState

    func sideEffect(_ context: any AnySideEffectContext) async throws -> AppState {
        guard let context = context as? KatanaContext else {
            throw StoreError.typeMismatch(
                expected: String(reflecting: KatanaContext.self), found: String(reflecting: type(of: context))
            )
        }
        return try await body(context)
    }
}
