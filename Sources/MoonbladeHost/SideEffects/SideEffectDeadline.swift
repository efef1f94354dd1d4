import Moonblade
import MoonbladeLua

/// The time limit of a side effect run from its first await of Swift work on: one entry of the shared
/// ``DeadlineTimer`` and one extra task for the whole run, whatever the number of awaits.
///
/// ``race(_:)`` goes on with the run in a task of its own (started at once, on the calling thread,
/// until it first suspends) and waits for it or for the deadline, whichever comes first. Inside, the
/// run awaits its Swift work directly, between ``beginAwait()`` and ``endAwait()``. When the
/// deadline passes during an await, the wait ends at once, even if the work ignores cancellation:
/// the run is *abandoned* (its work is cancelled and left to finish on its own, and the run then
/// stops without touching Lua again) and the waiter gets ``Passed``. While Lua runs, the deadline is
/// the count hook's to enforce.
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
    private var hasPassed = false
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
    func race<Result: Sendable>(_ run: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let timer = DeadlineTimer.shared.schedule(at: .now + deadline.remaining, self)
        defer { DeadlineTimer.shared.cancel(timer) }
        let value = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (waiter: UnsafeContinuation<any Sendable, any Error>) in
                lock.withLock { self.waiter = waiter }
                // Started on this thread: an await whose work does not suspend costs no thread hop.
                let worker = Task.immediate { [self] in
                    do {
                        tell(.success(try await run()))
                    } catch {
                        tell(.failure(error))
                    }
                }
                lock.withLock { self.worker = worker }
                // A cancellation before `worker` was stored found nothing to cancel.
                if Task.isCancelled { worker.cancel() }
            }
        } onCancel: {
            lock.withLock { worker }?.cancel()
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
    /// run must then stop without touching Lua: its coroutine is no longer its own).
    func endAwait() -> Bool {
        lock.withLock {
            guard phase == .awaiting else { return false }
            phase = .running
            return true
        }
    }

    /// The timer's call: abandons the run if it awaits Swift work, else leaves it to the count hook
    /// (and to ``beginAwait()``).
    func deadlinePassed() {
        let (abandoned, worker) = lock.withLock { () -> (UnsafeContinuation<any Sendable, any Error>?, Task<Void, Never>?) in
            hasPassed = true
            guard phase == .awaiting, let waiter else { return (nil, nil) }
            phase = .abandoned
            self.waiter = nil
            return (waiter, self.worker)
        }
        guard let abandoned else { return }
        worker?.cancel()
        abandoned.resume(throwing: Passed())
    }

    /// Tells the waiter how the run ended, unless the deadline told it first.
    private func tell(_ outcome: Swift.Result<any Sendable, any Error>) {
        let waiting = lock.withLock { () -> UnsafeContinuation<any Sendable, any Error>? in
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(with: outcome)
    }
}
