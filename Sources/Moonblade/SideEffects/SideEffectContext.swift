/// What a ``SideEffect`` can do with a `Store<S, D>`: read its state, use its dependencies, dispatch.
///
/// The context keeps its store alive: a side effect still running when the last other reference to
/// the store goes away finishes against a live store, and the store is freed when it returns.
public struct SideEffectContext<S: State, D: SideEffectDependencyContainer>: AnySideEffectContext {
    let store: Store<S, D>
    /// How many reactions down a chain the side effect was dispatched; what it dispatches is one further.
    public let cascadeDepth: Int

    /// The store's dependency container, shared by every side effect of the store.
    public var dependencies: D { store.dependencies }

    /// The store's dependency container, type-erased.
    public var anyDependencies: any SideEffectDependencyContainer { store.dependencies }

    /// The store's current state: every item dispatched and awaited so far is in it.
    public func getState() -> S { store.state }

    /// The store's current state, type-erased.
    public func getAnyState() -> any State { store.state }

    /// Dispatches any item to the store; see ``Dispatcher``.
    @discardableResult
    public func anyDispatch(_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable> {
        store.anyDispatch(dispatchable, cascadeDepth: cascadeDepth + 1)
    }

    /// Dispatches a state updater to the store; see ``Dispatcher``.
    @discardableResult
    public func dispatch(_ updater: some AnyStateUpdater) -> DispatchHandle<Void> {
        DispatchHandle(status: store.submit(.updater(updater), cascadeDepth: cascadeDepth + 1))
    }
}
