/// A ``Store`` seen without its state and dependency types, as interceptors and plugin hosts see it.
public protocol AnyStore: AnyObject, Dispatcher {
    /// The current state, type-erased.
    var anyState: any State { get }

    /// The dependency container, type-erased.
    var anyDependencies: any SideEffectDependencyContainer { get }
}
