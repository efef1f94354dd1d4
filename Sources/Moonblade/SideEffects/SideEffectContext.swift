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

/// ``SideEffectContext`` with its generic arguments left out, so that a store keeps
/// `SideEffectContext<S, D>.self` once as a value carrying the type's metadata and conformance: the
/// context of each side effect is made through it. In code generic over `S` and `D`, making one
/// directly and handing it on as `any AnySideEffectContext` looks both up on every run.
protocol StoreSideEffectContext: AnySideEffectContext {
    /// A context of `storeObject`, which must be a `Store<S, D>`.
    init(storeObject: AnyObject, cascadeDepth: Int)
}

extension SideEffectContext: StoreSideEffectContext {
    init(storeObject: AnyObject, cascadeDepth: Int) {
        self.init(store: unsafeDowncast(storeObject, to: Store<S, D>.self), cascadeDepth: cascadeDepth)
    }
}
