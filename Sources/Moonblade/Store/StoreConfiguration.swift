/// Runs `work` somewhere: on a queue, an actor, a run loop. Katana's `AsyncProvider`.
public typealias AsyncProvider = @Sendable (_ work: @escaping @Sendable () -> Void) -> Void

/// Settings of a ``Store`` that are not part of its logic.
public struct StoreConfiguration: Sendable {
    /// The priority of the tasks side effects run in; `nil` inherits the dispatcher's priority.
    public var sideEffectPriority: TaskPriority?
    /// Where listeners are called (Katana's `listenersAsyncProvider`): `nil` (the default) calls them
    /// on the thread that applied the change, before its dispatch completes; a provider is handed, for
    /// each change, the work of calling every listener with that change's (old, new) pair.
    ///
    /// Listeners see every change in order only if the provider runs work in the order it receives it
    /// (a serial queue, `{ work in DispatchQueue.main.async(execute: work) }` as in Katana); a dispatch
    /// then completes before its listeners have been called. A listener unsubscribed before the provider
    /// runs the work is not called, and none is once the store has been released.
    public var listenersAsyncProvider: AsyncProvider?

    /// Creates a configuration.
    public init(sideEffectPriority: TaskPriority? = nil, listenersAsyncProvider: AsyncProvider? = nil) {
        self.sideEffectPriority = sideEffectPriority
        self.listenersAsyncProvider = listenersAsyncProvider
    }

    /// The configuration stores use unless told otherwise.
    public static let `default` = StoreConfiguration()
}
