/// How a side effect that ends its own dispatch (``SelfEndingSideEffect``) hands its outcome to the
/// dispatch's handle: the first of ``end(with:)``'s calls decides what the handle's `value` is, and
/// ends the side effect for the store (``Store/waitUntilIdle()`` stops counting it).
///
/// The side effect's task ends it with whatever the side effect returns or throws; the side effect
/// may end it earlier from elsewhere (a time limit that abandons work ignoring cancellation), its task
/// then going on, unwaited for, until that work ends.
package final class SideEffectEnding: @unchecked Sendable {
    // @unchecked Sendable: `outcome`, `waiters`, `task` and `isCancelled` are only touched while
    // holding `lock`.
    private typealias Waiter = UnsafeContinuation<any Sendable, any Error>

    /// The lock of the store that runs the side effect: the box needs no lock of its own.
    private let lock: Lock
    /// The store, told once when the side effect ends.
    private let store: any SideEffectCounting
    private var outcome: Result<any Sendable, any Error>?
    /// Who waits for the outcome: the first waiter without an array, as most dispatches have one.
    private var firstWaiter: Waiter?
    private var moreWaiters: [Waiter] = []
    /// The side effect's task, once started.
    private var task: Task<Void, Never>?
    /// Whether ``cancel()`` was called before the task was known.
    private var isCancelled = false

    init(lock: Lock, store: any SideEffectCounting) {
        (self.lock, self.store) = (lock, store)
    }

    /// Keeps the side effect's task, for ``cancel()``; cancels it at once if a cancellation came first.
    func run(in task: Task<Void, Never>) {
        let cancel = lock.withLock { () -> Bool in
            self.task = task
            return isCancelled
        }
        if cancel { task.cancel() }
    }

    /// Ends the dispatch with `outcome`, unless it has ended already: wakes every waiter and tells the
    /// store the side effect is over.
    package func end(with outcome: Result<any Sendable, any Error>) {
        let waiters = lock.withLock { () -> (first: Waiter?, more: [Waiter])? in
            guard self.outcome == nil else { return nil }
            self.outcome = outcome
            defer { (firstWaiter, moreWaiters) = (nil, []) }
            return (firstWaiter, moreWaiters)
        }
        guard let waiters else { return }
        waiters.first?.resume(with: outcome)
        for waiter in waiters.more { waiter.resume(with: outcome) }
        store.sideEffectFinished()
    }

    /// Cancels the side effect's task, now or as soon as it is known.
    package func cancel() {
        let task = lock.withLock { () -> Task<Void, Never>? in
            isCancelled = true
            return self.task
        }
        task?.cancel()
    }

    /// What the side effect returned or threw, or what ended it first.
    nonisolated(nonsending) var value: any Sendable {
        get async throws {
            if let outcome = lock.withLock({ outcome }) { return try outcome.get() }
            return try await withUnsafeThrowingContinuation { add($0) }
        }
    }

    /// Adds `waiter`, or resumes it at once if the dispatch has ended meanwhile.
    private func add(_ waiter: Waiter) {
        lock.lock()
        guard let outcome else {
            if firstWaiter == nil { firstWaiter = waiter } else { moreWaiters.append(waiter) }
            return lock.unlock()
        }
        lock.unlock()
        waiter.resume(with: outcome)
    }
}

/// A store as a side effect's ending tells it the side effect is over.
protocol SideEffectCounting: AnyObject, Sendable {
    /// Counts one running side effect less, waking ``Store/waitUntilIdle()``'s waiters at the last.
    func sideEffectFinished()
}
