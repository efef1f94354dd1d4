/// An item an ``ObserverInterceptor`` dispatches when the store starts.
public protocol OnStartObserverDispatchable: Dispatchable {
    /// Creates the item, or returns nil to dispatch nothing.
    init?()
}
