/// The box a queued item's handle waits on until the draining thread has processed the item.
///
/// It resolves to the handle the item would have had if it had run at once, so a queued side effect
/// resolves to its task and a forwarded item to the handle of its replacement.
final class DispatchCompletion: @unchecked Sendable {
    // @unchecked: `phase` is only read or written while holding `lock`.
    private typealias Waiter = CheckedContinuation<DispatchHandle<any Sendable>, Never>

    private enum Phase {
        case waiting([Waiter])
        case resolved(DispatchHandle<any Sendable>)
    }

    private let lock = Lock()
    private var phase = Phase.waiting([])

    /// Resolves the box and wakes every waiter. Only the first call has an effect.
    func resolve(with handle: DispatchHandle<any Sendable>) {
        let waiters = lock.withLock { () -> [Waiter] in
            guard case .waiting(let waiters) = phase else { return [] }
            phase = .resolved(handle)
            return waiters
        }
        for waiter in waiters {
            waiter.resume(returning: handle)
        }
    }

    /// The handle this box resolves to, once the item has been processed.
    var handle: DispatchHandle<any Sendable> {
        get async {
            if case .resolved(let handle) = lock.withLock({ phase }) {
                return handle
            }
            return await withCheckedContinuation { continuation in
                let resolved = lock.withLock { () -> DispatchHandle<any Sendable>? in
                    switch phase {
                    case .waiting(let waiters):
                        phase = .waiting(waiters + [continuation])
                        return nil
                    case .resolved(let handle):
                        return handle
                    }
                }
                if let resolved {
                    continuation.resume(returning: resolved)
                }
            }
        }
    }
}
