/// The box a queued item's handle waits on until the draining thread has processed the item.
///
/// It resolves to the status the item would have had if it had run at once, so a queued side effect
/// resolves to its task and a forwarded item to the status of its replacement.
final class DispatchCompletion: @unchecked Sendable {
    // @unchecked: `phase` is only read or written while holding `lock`.
    private typealias Waiter = CheckedContinuation<DispatchStatus, Never>

    private enum Phase {
        case waiting([Waiter])
        case resolved(DispatchStatus)
    }

    /// The lock of the store the item was queued in: the box needs no lock of its own.
    private let lock: Lock
    /// The store the item was queued in, to refuse a blocking wait on its draining thread.
    private weak let store: (any DrainingStore)?
    private var phase = Phase.waiting([])
    /// Whether ``cancel()`` was called before the item was processed.
    private var isCancelled = false

    init(lock: Lock, store: any DrainingStore) {
        self.lock = lock
        self.store = store
    }

    /// The error a blocking wait at `place` fails with at once, when it is made on the thread that
    /// would have to process the item; nil when the wait can be served.
    func unservableWait(at place: String) -> StoreError? {
        store?.unservableWait(at: place)
    }

    /// Resolves the box and wakes every waiter. Only the first call has an effect.
    func resolve(with status: DispatchStatus) {
        let (waiters, cancel) = lock.withLock { () -> ([Waiter], Bool) in
            guard case .waiting(let waiters) = phase else { return ([], false) }
            phase = .resolved(status)
            return (waiters, isCancelled)
        }
        if cancel {
            status.cancel()
        }
        for waiter in waiters {
            waiter.resume(returning: status)
        }
    }

    /// Cancels what the item turns out to be (a side effect's task), now or once it is resolved.
    func cancel() {
        let resolved = lock.withLock { () -> DispatchStatus? in
            guard case .resolved(let status) = phase else {
                isCancelled = true
                return nil
            }
            return status
        }
        resolved?.cancel()
    }

    /// The status this box resolves to, once the item has been processed.
    nonisolated(nonsending) var status: DispatchStatus {
        get async {
            if case .resolved(let status) = lock.withLock({ phase }) {
                return status
            }
            return await withCheckedContinuation { continuation in
                let resolved = lock.withLock { () -> DispatchStatus? in
                    switch phase {
                    case .waiting(let waiters):
                        phase = .waiting(waiters + [continuation])
                        return nil
                    case .resolved(let status):
                        return status
                    }
                }
                if let resolved {
                    continuation.resume(returning: resolved)
                }
            }
        }
    }
}
