/// A pure, synchronous change to a state of type `StateType`: the only way to change a store's state.
///
/// The store applies updaters one at a time, in dispatch order. An updater that throws leaves the state
/// exactly as it was, and its error reaches the dispatcher through ``DispatchHandle/value``.
///
/// ```swift
/// struct Increment: StateUpdater {
///     func updateState(_ state: inout Counter) { state.count += 1 }
/// }
/// ```
public protocol StateUpdater<StateType>: AnyStateUpdater {
    /// The state this updater changes.
    associatedtype StateType: State

    /// Changes `state` in place; throwing discards every change made so far.
    func updateState(_ state: inout StateType) throws
}

extension StateUpdater {
    /// Applies ``updateState(_:)`` to a copy of `currentState`, which must be a `StateType`.
    public func updatedState(currentState: any State) throws -> any State {
        guard var state = currentState as? StateType else {
            throw Self.mismatch(found: type(of: currentState))
        }
        try updateState(&state)
        return state
    }

    /// Applies ``updateState(_:)`` to `state` in place, which must be a `StateType`.
    public func updateAnyState<T: State>(_ state: inout T) throws {
        guard T.self == StateType.self else { throw Self.mismatch(found: T.self) }
        // The types are the same, so seeing the state as a `StateType` is an identity: no box, no copy.
        try withUnsafeMutablePointer(to: &state) { state in
            try state.withMemoryRebound(to: StateType.self, capacity: 1) { state in
                try updateState(&state.pointee)
            }
        }
    }

    private static func mismatch(found: any State.Type) -> StoreError {
        .typeMismatch(expected: String(reflecting: StateType.self), found: String(reflecting: found))
    }
}
