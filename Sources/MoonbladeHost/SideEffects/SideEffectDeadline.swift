import Moonblade
import MoonbladeLua

/// The time limit of a side effect run from its first await of Swift work on: one extra task for the
/// whole run, whatever the number of awaits, and one entry of the shared ``DeadlineTimer`` once the
/// run suspends.
///
/// ``race(_:)`` goes on with the run in a task of its own (started at once, on the calling thread,
/// until it first suspends) and, unless the run has ended by then, waits for it or for the deadline,
/// whichever comes first. Inside, the run awaits its Swift work directly, between ``beginAwait()``
/// and ``endAwait()``. When the deadline passes during an await, the wait ends at once, even if the
/// work ignores cancellation: the run is *abandoned* (its work is cancelled and left to finish on its
/// own, and the run then stops without touching Lua again) and the waiter gets ``Passed``. While Lua
/// runs, the deadline is the count hook's to enforce.
final class SideEffectDeadline: DeadlineTimer.Client, @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only inside `lock`.

    /// The deadline passed while the run awaited Swift work: the run is abandoned.
    struct Passed: Error {}

    /// Where the run is, as far as the deadline is concerned.
    private enum Phase {
        /// Running Lua or host code; the count hook enforces the deadline.
        case running
        /// Awaiting Swift work; the deadline abandons the run.
        case awaiting
        /// The deadline passed while it awaited: the waiter has been told, the run must stop.
        case abandoned
    }

    let deadline: LuaDeadline
    private let lock = Lock()
    private var phase = Phase.running
    /// Whether the deadline is known to have passed (the timer said so, or an await found it): what
    /// the clock would say, kept so that ``beginAwait()`` reads no clock on every await.
    private var hasPassed = false
    /// How the run ended, when it ended before anyone waited for it.
    private var outcome: Swift.Result<any Sendable, any Error>?
    /// The task waiting for the run, until it is told how the run ended.
    private var waiter: UnsafeContinuation<any Sendable, any Error>?
    /// The task going on with the run.
    private var worker: Task<Void, Never>?

    init(_ deadline: LuaDeadline) {
        self.deadline = deadline
    }

    /// Goes on with the run in a task of its own and returns what it returns, or throws what it
    /// throws, or ``Passed`` once the deadline passes while the run awaits Swift work. Cancelling the
    /// calling task cancels the run's task, and so the work it awaits.
    ///
    /// The run's task starts on this thread: when the work it awaits does not suspend (a dependency
    /// that answers at once), the run has ended by the time it returns, and the caller neither waits
    /// nor schedules the deadline (nothing could have held the run up that the deadline could end).
    func race<Result: Sendable>(_ run: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let worker = Task.immediate { [self] in
            do {
                tell(.success(try await run()))
            } catch {
                tell(.failure(error))
            }
        }
        lock.lock()
        if let outcome {
            lock.unlock()
            return try outcome.get() as! Result  // `run` returned it
        }
        self.worker = worker
        lock.unlock()
        let timer = DeadlineTimer.shared.schedule(at: .now + deadline.remaining, self)
        defer { DeadlineTimer.shared.cancel(timer) }
        let value = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (waiter: UnsafeContinuation<any Sendable, any Error>) in
                lock.lock()
                if let outcome {
                    lock.unlock()
                    waiter.resume(with: outcome)
                } else if phase == .abandoned {
                    lock.unlock()
                    waiter.resume(throwing: Passed())
                } else {
                    self.waiter = waiter
                    lock.unlock()
                }
            }
        } onCancel: {
            worker.cancel()
        }
        return value as! Result  // `run` returned it
    }

    /// Marks the run as awaiting Swift work; false when the deadline has passed already (the run must
    /// then fail with a limit error).
    func beginAwait() -> Bool {
        lock.withLock {
            guard !hasPassed else { return false }
            phase = .awaiting
            return true
        }
    }

    /// Marks the run as running again after its await; false when it was abandoned meanwhile (the
    /// run must then stop without touching Lua: its coroutine is no longer its own). An await whose
    /// work held its thread past the deadline without suspending abandons the run here: no timer was
    /// scheduled to do it (``race(_:)`` schedules one only for a run that suspends).
    func endAwait() -> Bool {
        lock.lock()
        guard phase == .awaiting else {
            lock.unlock()
            return false
        }
        guard hasPassed || deadline.hasPassed else {
            phase = .running
            lock.unlock()
            return true
        }
        let abandoned = abandon()
        lock.unlock()
        abandoned?.resume(throwing: Passed())
        return false
    }

    /// The timer's call: abandons the run if it awaits Swift work, else leaves it to the count hook
    /// (and to ``beginAwait()``).
    func deadlinePassed() {
        lock.lock()
        guard phase == .awaiting else {
            hasPassed = true
            return lock.unlock()
        }
        let (abandoned, worker) = (abandon(), self.worker)
        lock.unlock()
        worker?.cancel()
        abandoned?.resume(throwing: Passed())
    }

    /// Marks the awaiting run abandoned and returns the waiter to tell, if one waits already (one that
    /// comes to wait later finds the run abandoned). Called inside `lock`.
    private func abandon() -> UnsafeContinuation<any Sendable, any Error>? {
        hasPassed = true
        phase = .abandoned
        defer { waiter = nil }
        return waiter
    }

    /// Tells the waiter how the run ended, unless the deadline told it first; keeps the outcome for
    /// ``race(_:)`` when nobody waits yet.
    private func tell(_ outcome: Swift.Result<any Sendable, any Error>) {
        lock.lock()
        guard let waiting = waiter else {
            if phase != .abandoned { self.outcome = outcome }
            lock.unlock()
            return
        }
        waiter = nil
        lock.unlock()
        waiting.resume(with: outcome)
    }
}
