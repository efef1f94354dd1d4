/// Changes applied inside ``Store/transaction(_:)``, held back until it succeeds.
///
/// A class, so that the store's check for an open transaction on every updater is a pointer test,
/// not a generic-metadata look-up of an optional struct.
final class StoreTransaction<S: State> {
    /// The state before the transaction's first change.
    private(set) var original: S?
    /// Each change with the listeners it is owed, in order.
    private(set) var changes: [(old: S, new: S, listeners: [StoreListenerEntry<S>])] = []

    func record(old: S, new: S, listeners: [StoreListenerEntry<S>]) {
        if original == nil { original = old }
        changes.append((old, new, listeners))
    }
}

extension Store {
    /// How many state values the store has stored so far: a stamp that changes with every change
    /// (and with every rollback), for caches that mirror the state, such as the plugin host's copy of
    /// it in Lua. For any thread.
    package var stateVersion: UInt64 { stateVersions.value }

    /// The current state and its ``stateVersion``, read together: for any thread.
    package var anyStateWithVersion: (state: any State, version: UInt64) {
        // Locked by hand: reached through a witness, the generic store is not specialized, and
        // `withLock` returning a tuple would look up the tuple's metadata on every read.
        lock.lock()
        let state = storedState
        let version = stateVersions.value
        lock.unlock()
        return (state, version)
    }

    /// Runs `body` (an interceptor's handing on of the item being processed) as one transaction: if it
    /// throws, every change it applied is undone and no listener hears of them; if it returns, the
    /// listeners hear of each change in order. Transactions nest: an inner one joins the outer one.
    ///
    /// Only the draining thread may call it, from an interceptor. Other threads reading the state
    /// meanwhile may see a change that is then rolled back; listeners never do.
    package func transaction(_ body: () throws -> Void) throws {
        precondition(isOnDrainingThread, "a store transaction is only for interceptors on the draining thread")
        guard currentTransaction == nil else { return try body() }
        let transaction = StoreTransaction<S>()
        currentTransaction = transaction
        let outcome = Result { try body() }
        currentTransaction = nil
        switch outcome {
        case .success:
            for change in transaction.changes {
                notify(change.listeners, old: change.old, new: change.new)
            }
        case .failure(let error):
            if let original = transaction.original {
                lock.withLock {
                    storedState = original
                    stateVersions.advance()
                }
            }
            throw error
        }
    }
}
