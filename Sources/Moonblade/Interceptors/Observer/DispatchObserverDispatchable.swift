/// An item an ``ObserverInterceptor`` dispatches when an item of an observed type is dispatched.
public protocol DispatchObserverDispatchable: Dispatchable {
    /// Creates the item for `dispatchedItem`, handled between `prevState` and `currentState`,
    /// or returns nil to dispatch nothing.
    init?(dispatchedItem: any Dispatchable, prevState: any State, currentState: any State)
}
