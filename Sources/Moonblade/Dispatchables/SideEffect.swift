/// Asynchronous work that reads the state, uses the store's dependencies and dispatches more items.
///
/// Each side effect runs in its own `Task`, concurrently with other side effects. It sees the state
/// as of its dispatch (every item dispatched before it has been applied) and, after
/// `try await context.dispatch(updater).value`, a state that includes that updater.
///
/// ```swift
/// struct Load: SideEffect {
///     func sideEffect(_ context: SideEffectContext<AppState, AppDependencies>) async throws {
///         let items = try await context.dependencies.api.items()
///         try await context.dispatch(Replace(items: items)).value
///     }
/// }
/// ```
public protocol SideEffect<StateType, Dependencies>: AnySideEffect {
    /// The state of the store this side effect runs in.
    associatedtype StateType: State
    /// The dependency container of the store this side effect runs in.
    associatedtype Dependencies: SideEffectDependencyContainer

    /// Performs the side effect; a thrown error reaches ``DispatchHandle/value``.
    func sideEffect(_ context: SideEffectContext<StateType, Dependencies>) async throws
}

extension SideEffect {
    /// Runs ``sideEffect(_:)`` with `context` seen as a `SideEffectContext<StateType, Dependencies>`.
    ///
    /// - Throws: ``StoreError/typeMismatch(expected:found:)`` if the store has another state or
    ///   dependency type than this side effect expects.
    public func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        guard let typedContext = context as? SideEffectContext<StateType, Dependencies> else {
            throw StoreError.typeMismatch(
                expected: String(reflecting: SideEffectContext<StateType, Dependencies>.self),
                found: String(reflecting: type(of: context))
            )
        }
        try await sideEffect(typedContext)
        return ()
    }
}
