/// An item an ``ObserverInterceptor`` dispatches when a state change matches a rule.
public protocol StateObserverDispatchable: Dispatchable {
    /// Creates the item for the change from `prevState` to `currentState`, or returns nil to dispatch nothing.
    init?(prevState: any State, currentState: any State)
}
