/// Called after every state change with the state before and after it, on the thread that applied it
/// (or where the store's ``StoreConfiguration/listenersAsyncProvider`` runs it).
public typealias StoreListener<S> = @Sendable (_ oldState: S, _ newState: S) -> Void

/// Removes the listener it was returned for. Calling it again does nothing.
public typealias StoreUnsubscribe = @Sendable () -> Void

extension Store {
    /// Registers `listener` for every state change from now on, in order, each with its (old, new) pair.
    ///
    /// Listeners may be added and removed from any thread at any time, also from inside a listener.
    /// Guarantee on removal: once the returned closure has returned, the listener is not called for
    /// any change applied after that, nor, with a ``StoreConfiguration/listenersAsyncProvider``, for a
    /// change whose listener calls the provider has not started yet. A call already begun may still be in
    /// progress (the listeners of a change are snapshotted when it is applied: one added later is not
    /// called for it).
    ///
    /// - Returns: a closure that removes the listener.
    public func addListener(_ listener: @escaping StoreListener<S>) -> StoreUnsubscribe {
        let id = lock.withLock {
            defer { nextListenerID += 1 }
            listeners.append(StoreListenerEntry(id: nextListenerID, callback: listener))
            return nextListenerID
        }
        return { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.listeners.removeAll { $0.id == id } }
        }
    }
}
