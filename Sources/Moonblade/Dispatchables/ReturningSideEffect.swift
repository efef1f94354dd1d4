/// A side effect that produces a value, returned to whoever awaits its dispatch.
///
/// `let user = try await store.dispatch(FetchUser(id: 1)).value` — also from inside another side
/// effect. It gets the type-erased context, so it can run in any store.
public protocol ReturningSideEffect<ReturnValue>: AnySideEffect {
    /// The type of the value the side effect produces.
    associatedtype ReturnValue: Sendable

    /// Performs the side effect and returns its value; a thrown error reaches ``DispatchHandle/value``.
    func sideEffect(_ context: any AnySideEffectContext) async throws -> ReturnValue
}

extension ReturningSideEffect {
    /// Runs ``sideEffect(_:)`` and returns its value.
    public func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        try await sideEffect(context)
    }
}
