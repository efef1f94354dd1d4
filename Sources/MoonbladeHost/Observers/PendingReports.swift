import Moonblade

/// The failures of rule reactions that are still to be reported: a reaction's item can finish, and the
/// store go idle, a moment before the task awaiting it logs its failure. Settling waits for those
/// reports too, so a host that counts logged failures (the command line) sees them all.
final class PendingReports: @unchecked Sendable {
    // @unchecked Sendable: `count` and `waiters` are touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees).
    private let lock = Lock()
    private var count = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A report is on its way.
    func begin() {
        lock.withLock { count += 1 }
    }

    /// A report has been made (or was not needed).
    func end() {
        let ready = lock.withLock {
            count -= 1
            guard count == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { waiters = [] }
            return waiters
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once no report is on its way.
    func waitUntilNone() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let none = lock.withLock {
                guard count > 0 else { return true }
                waiters.append(waiter)
                return false
            }
            if none { waiter.resume() }
        }
    }
}
