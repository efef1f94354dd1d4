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
    private var phase = Phase.waiting([])

    init(lock: Lock) {
        self.lock = lock
    }

    /// Resolves the box and wakes every waiter. Only the first call has an effect.
    func resolve(with status: DispatchStatus) {
        let waiters = lock.withLock { () -> [Waiter] in
            guard case .waiting(let waiters) = phase else { return [] }
            phase = .resolved(status)
            return waiters
        }
        for waiter in waiters {
            waiter.resume(returning: status)
        }
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
