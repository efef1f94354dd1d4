import Moonblade
import MoonbladeLua

/// The time limit of one side effect run, one entry of the shared ``DeadlineTimer`` for the whole run.
///
/// Each await of Swift work races the deadline: the wait ends the moment the deadline passes, even
/// when the work ignores cancellation (the work is then cancelled and left to finish on its own). The
/// entry is removed when the run ends, so a finished run holds nothing.
final class SideEffectDeadline: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only inside `lock`.

    /// The deadline passed before the awaited work finished.
    struct Passed: Error {
        let deadline: LuaDeadline
    }

    let deadline: LuaDeadline
    private let lock = Lock()
    private var timer: Int?
    private var hasPassed = false
    /// The wait in progress: its number (so a late outcome of abandoned work is ignored), the
    /// continuation to resume and the task doing the work.
    private var wait: (number: Int, continuation: CheckedContinuation<PluginValue, any Error>, worker: Task<Void, Never>?)?
    private var waits = 0

    /// Starts the timer of a run that must end by `deadline`.
    init(_ deadline: LuaDeadline) {
        self.deadline = deadline
        let number = DeadlineTimer.shared.schedule(at: .now + deadline.remaining) { [weak self] in self?.pass() }
        lock.withLock { timer = number }
    }

    /// Stops the timer; called when the run ends.
    func stop() {
        if let number = lock.withLock({ timer }) { DeadlineTimer.shared.cancel(number) }
    }

    /// Runs `work` and returns or throws what it does, or throws ``Passed`` once the deadline passes.
    func run(_ work: @escaping PendingWork) async throws -> PluginValue {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let number = lock.withLock { () -> Int? in
                    guard !hasPassed else { return nil }
                    waits += 1
                    wait = (waits, continuation, nil)
                    return waits
                }
                guard let number else { return continuation.resume(throwing: Passed(deadline: deadline)) }
                let worker = Task { [weak self] in
                    let outcome = await Result(awaiting: work)
                    self?.finish(wait: number, with: outcome)
                }
                lock.withLock {
                    if wait?.number == number { wait?.worker = worker }
                }
            }
        } onCancel: {
            endWait(with: .failure(CancellationError()))
        }
    }

    /// The deadline has passed: the waiting await, if any, fails now and its work is cancelled.
    private func pass() {
        lock.withLock { hasPassed = true }
        endWait(with: .failure(Passed(deadline: deadline)))
    }

    private func finish(wait number: Int, with outcome: Result<PluginValue, any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<PluginValue, any Error>? in
            guard let current = wait, current.number == number else { return nil }
            wait = nil
            return current.continuation
        }
        waiting?.resume(with: outcome)
    }

    /// Ends the wait in progress with `outcome`, cancelling its work.
    private func endWait(with outcome: Result<PluginValue, any Error>) {
        let ended = lock.withLock { () -> (CheckedContinuation<PluginValue, any Error>, Task<Void, Never>?)? in
            guard let current = wait else { return nil }
            wait = nil
            return (current.continuation, current.worker)
        }
        guard let (continuation, worker) = ended else { return }
        worker?.cancel()
        continuation.resume(with: outcome)
    }
}
