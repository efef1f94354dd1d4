/// What a side effect (or an interceptor) can do with its store, without knowing the store's types.
///
/// ``ReturningSideEffect``s and interceptors get this type-erased context; a ``SideEffect`` gets the
/// typed ``SideEffectContext``, which conforms too.
public protocol AnySideEffectContext: Dispatcher {
    /// The store's dependency container.
    var anyDependencies: any SideEffectDependencyContainer { get }

    /// The store's current state.
    func getAnyState() -> any State
}
