/// Dispatches an item to the store that built a dependency container; see ``Dispatcher/anyDispatch(_:)``.
public typealias AnyDispatch = @Sendable (_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable>

/// Returns the current state of the store that built a dependency container.
public typealias GetState = @Sendable () -> any State

/// The object that holds what side effects need from the outside world (API clients, storage, clocks).
///
/// A store builds exactly one container, before its state, and every side effect of the store gets
/// that same instance. The closures it receives work from the start: items dispatched through them
/// before the store is ready are queued and run, in order, once it is.
public protocol SideEffectDependencyContainer: AnyObject, Sendable {
    /// Creates the container for a store, with closures that dispatch to it and read its state.
    init(dispatch: @escaping AnyDispatch, getState: @escaping GetState)
}
