import Foundation

/// Holds the first of several outcomes and hands it to its single waiter.
final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    // @unchecked: `outcome` and `waiter` are only touched while holding `lock`.
    private let lock = NSLock()
    private var outcome: T??
    private var waiter: CheckedContinuation<T?, Never>?

    func finish(_ value: T?) {
        let waiter = lock.withLock { () -> CheckedContinuation<T?, Never>? in
            guard outcome == nil else { return nil }
            outcome = .some(value)
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: value)
    }

    var value: T? {
        get async {
            await withCheckedContinuation { continuation in
                let finished = lock.withLock { () -> T?? in
                    if outcome == nil { waiter = continuation }
                    return outcome
                }
                if let finished { continuation.resume(returning: finished) }
            }
        }
    }
}
