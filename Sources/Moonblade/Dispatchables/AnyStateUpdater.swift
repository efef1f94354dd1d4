/// The type-erased face of a ``StateUpdater``: a pure, synchronous change to the state.
///
/// Conform to ``StateUpdater`` instead; it implements these requirements for you.
public protocol AnyStateUpdater: Dispatchable {
    /// Returns `currentState` with this updater applied.
    ///
    /// - Throws: ``StoreError/typeMismatch(expected:found:)`` if `currentState` is not the state type
    ///   the updater is written for, or whatever the updater itself throws.
    func updatedState(currentState: any State) throws -> any State

    /// Applies this updater to `state` in place. The store calls this; you do not need to.
    ///
    /// ``StateUpdater`` implements it without boxing or copying the state; the default implementation
    /// goes through ``updatedState(currentState:)``.
    ///
    /// - Throws: ``StoreError/typeMismatch(expected:found:)`` if `state` is not the state type the
    ///   updater is written for, or whatever the updater itself throws (`state` is then unchanged).
    func updateAnyState<T: State>(_ state: inout T) throws
}

extension AnyStateUpdater {
    /// Applies ``updatedState(currentState:)`` and stores its result in `state`.
    public func updateAnyState<T: State>(_ state: inout T) throws {
        let updated = try updatedState(currentState: state)
        guard let updated = updated as? T else {
            throw StoreError.typeMismatch(
                expected: String(reflecting: T.self),
                found: String(reflecting: type(of: updated))
            )
        }
        state = updated
    }
}
