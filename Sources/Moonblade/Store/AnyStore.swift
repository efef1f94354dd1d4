/// A ``Store`` seen without its state and dependency types, as interceptors and plugin hosts see it.
public protocol AnyStore: AnyObject, Dispatcher {
    /// The current state, type-erased.
    var anyState: any State { get }

    /// The dependency container, type-erased.
    var anyDependencies: any SideEffectDependencyContainer { get }
}

/// A store that tracks chains of reactions: what ``InterceptorContext`` needs from a ``Store`` beyond
/// ``AnyStore``, for the plugin host's rules.
package protocol CascadingStore: AnyStore {
    var cascadeDepth: Int { get }
    func anyDispatch(_ dispatchable: any Dispatchable, cascadeDepth: Int) -> DispatchHandle<any Sendable>
    var stateVersion: UInt64 { get }
    var stateVersions: StateVersionCounter { get }
    var anyStateWithVersion: (state: any State, version: UInt64) { get }
    func transaction(_ body: () throws -> Void) throws
}

extension Store: CascadingStore {}

/// A store that processes items on a draining thread, which must never block waiting for one of them.
protocol DrainingStore: AnyObject, Sendable {
    func unservableWait(at place: String) -> StoreError?
}

extension Store: DrainingStore {}
