/// How a side effect that ends its own dispatch (``SelfEndingSideEffect``) hands its outcome to the
/// dispatch's handle: the first of its `end` calls decides what the handle's `value` is, and
/// ends the side effect for the store (``Store/waitUntilIdle()`` stops counting it).
///
/// The side effect's task ends it with whatever the side effect returns or throws; the side effect
/// may end it earlier from elsewhere (a time limit that abandons work ignoring cancellation), its task
/// then going on, unwaited for, until that work ends.
package final class SideEffectEnding: @unchecked Sendable {
    // @unchecked Sendable: every stored var is only touched while holding `lock`.
    private typealias Waiter = UnsafeContinuation<any Sendable, any Error>

    /// The lock of the store that runs the side effect: the box needs no lock of its own.
    private let lock: Lock
    /// The store, told once when the side effect ends.
    private let store: any SideEffectCounting
    /// Whether the dispatch has ended, with `value` or `error`. (Kept apart rather than as an
    /// optional `Result`, whose every test and copy goes through the runtime's enum functions.)
    private var hasEnded = false
    private var value: any Sendable = ()
    private var error: (any Error)?
    /// Who waits for the outcome: the first waiter without an array, as most dispatches have one.
    private var firstWaiter: Waiter?
    private var moreWaiters: [Waiter] = []
    /// The side effect's task, once started.
    private var task: Task<any Sendable, any Error>?
    /// Whether ``cancel()`` was called before the task was known.
    private var isCancelled = false

    init(lock: Lock, store: any SideEffectCounting) {
        (self.lock, self.store) = (lock, store)
    }

    /// Keeps the side effect's task, for ``cancel()``; cancels it at once if a cancellation came first.
    func run(in task: Task<any Sendable, any Error>) {
        lock.lock()
        self.task = task
        let cancel = isCancelled
        lock.unlock()
        if cancel { task.cancel() }
    }

    /// Ends the dispatch with `value`, unless it has ended already.
    package func end(returning value: any Sendable) {
        guard let (first, more) = takeWaiters(ending: { self.value = value }) else { return }
        first?.resume(returning: value)
        for waiter in more { waiter.resume(returning: value) }
        store.sideEffectFinished()
    }

    /// Ends the dispatch with `error`, unless it has ended already.
    package func end(throwing error: any Error) {
        guard let (first, more) = takeWaiters(ending: { self.error = error }) else { return }
        first?.resume(throwing: error)
        for waiter in more { waiter.resume(throwing: error) }
        store.sideEffectFinished()
    }

    /// Marks the dispatch ended, keeping its outcome with `keep`, and hands back who waits for it; nil
    /// if it had ended already. (The store is told outside the lock, which is the store's own.)
    private func takeWaiters(ending keep: () -> Void) -> (first: Waiter?, more: [Waiter])? {
        lock.lock()
        defer { lock.unlock() }
        guard !hasEnded else { return nil }
        hasEnded = true
        keep()
        defer { (firstWaiter, moreWaiters) = (nil, []) }
        return (firstWaiter, moreWaiters)
    }

    /// Cancels the side effect's task, now or as soon as it is known.
    package func cancel() {
        lock.lock()
        isCancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    /// What the side effect returned or threw, or what ended it first.
    nonisolated(nonsending) var outcome: any Sendable {
        get async throws {
            lock.lock()
            guard hasEnded else {
                lock.unlock()
                return try await withUnsafeThrowingContinuation { add($0) }
            }
            let (value, error) = (value, error)
            lock.unlock()
            if let error { throw error }
            return value
        }
    }

    /// Adds `waiter`, or resumes it at once if the dispatch has ended meanwhile.
    private func add(_ waiter: Waiter) {
        lock.lock()
        guard hasEnded else {
            if firstWaiter == nil { firstWaiter = waiter } else { moreWaiters.append(waiter) }
            return lock.unlock()
        }
        let (value, error) = (value, error)
        lock.unlock()
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: value) }
    }
}

/// A store as a side effect's ending tells it the side effect is over.
protocol SideEffectCounting: AnyObject, Sendable {
    /// Counts one running side effect less, waking ``Store/waitUntilIdle()``'s waiters at the last.
    func sideEffectFinished()
}
