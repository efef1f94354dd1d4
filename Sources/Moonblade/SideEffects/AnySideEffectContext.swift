/// What a side effect (or an interceptor) can do with its store, without knowing the store's types.
///
/// ``ReturningSideEffect``s and interceptors get this type-erased context; a ``SideEffect`` gets the
/// typed ``SideEffectContext``, which conforms too.
public protocol AnySideEffectContext: Dispatcher {
    /// The store's dependency container.
    var anyDependencies: any SideEffectDependencyContainer { get }

    /// The store's current state.
    func getAnyState() -> any State

    /// How many reactions down a chain of dispatches the side effect runs: 0 when dispatched from
    /// outside the store, one more for each side effect or observer rule on the way. What it
    /// dispatches runs one further; a host stops chains that never end by this count.
    var cascadeDepth: Int { get }
}

extension AnySideEffectContext {
    /// 0: a context that is not a store's own starts no chain.
    public var cascadeDepth: Int { 0 }
}
