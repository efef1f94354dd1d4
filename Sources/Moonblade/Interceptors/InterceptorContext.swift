/// The store as its interceptors (and dependency container) see it: state, dependencies, dispatch.
///
/// It holds the store weakly, because the store owns its interceptors. Dispatching to a released
/// store fails with ``StoreError/storeReleased``; reading the state or the dependencies of a released
/// store is a programming error and stops the program.
public struct InterceptorContext: AnySideEffectContext {
    private weak let store: (any CascadingStore)?

    init(store: any CascadingStore) {
        self.store = store
    }

    /// The store's dependency container.
    public var anyDependencies: any SideEffectDependencyContainer { liveStore.anyDependencies }

    /// The store's current state.
    public func getAnyState() -> any State { liveStore.anyState }

    /// Dispatches any item to the store; see ``Dispatcher``.
    @discardableResult
    public func anyDispatch(_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable> {
        store?.anyDispatch(dispatchable) ?? .failed(StoreError.storeReleased)
    }

    /// Dispatches a state updater to the store; see ``Dispatcher``.
    @discardableResult
    public func dispatch(_ updater: some AnyStateUpdater) -> DispatchHandle<Void> {
        store?.dispatch(updater) ?? .failed(StoreError.storeReleased)
    }

    /// How many reactions down a chain the item being intercepted was dispatched (0 once the store
    /// is released).
    public var cascadeDepth: Int { store?.cascadeDepth ?? 0 }

    /// Dispatches an item caused by the one being intercepted, `cascadeDepth` steps down the chain.
    @discardableResult
    package func anyDispatch(_ dispatchable: any Dispatchable, cascadeDepth: Int) -> DispatchHandle<any Sendable> {
        store?.anyDispatch(dispatchable, cascadeDepth: cascadeDepth) ?? .failed(StoreError.storeReleased)
    }

    /// A stamp of the store's state that changes with every change; see ``Store/stateVersion``.
    package var stateVersion: UInt64 { liveStore.stateVersion }

    /// The store's count of state values, to read ``stateVersion`` without the store.
    package var stateVersions: StateVersionCounter { liveStore.stateVersions }

    /// The store's state and its version, read together; for any thread.
    package var anyStateWithVersion: (state: any State, version: UInt64) { liveStore.anyStateWithVersion }

    /// Runs `body` as one transaction of the item being intercepted; see ``Store/transaction(_:)``.
    package func transaction(_ body: () throws -> Void) throws {
        try liveStore.transaction(body)
    }

    private var liveStore: any CascadingStore {
        guard let store else { preconditionFailure("the store of this context was released") }
        return store
    }
}
