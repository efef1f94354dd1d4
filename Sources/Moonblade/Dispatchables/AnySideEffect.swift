/// The type-erased face of a side effect: asynchronous work that talks to the outside world.
///
/// Conform to ``SideEffect`` or ``ReturningSideEffect`` instead; they implement this requirement.
public protocol AnySideEffect: Dispatchable {
    /// Runs the side effect with the store's type-erased context and returns its result
    /// (`()` for a plain ``SideEffect``).
    func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable
}
