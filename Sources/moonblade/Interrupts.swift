import Foundation
import Moonblade

/// Ctrl-C while the repl runs a dispatch: SIGINT, caught so it ends the wait instead of the session.
final class Interrupts: @unchecked Sendable {
    // @unchecked Sendable: `catcher` is set once, in init; `onInterrupt` is touched only under `lock`
    // (a pthread `Lock`, which the thread sanitizer follows; it does not follow `Synchronization.Mutex`).
    /// Set once the rest is, so that its handler can hold this object weakly.
    private var catcher: SignalCatcher?
    private let lock = Lock()
    /// What the next SIGINT does: stop the wait in progress, if there is one.
    private var onInterrupt: (@Sendable () -> Void)?

    init() {
        catcher = SignalCatcher([SIGINT]) { [weak self] _ in self?.interrupt() }
    }

    private func interrupt() {
        lock.withLock { onInterrupt }?()
    }

    /// Runs `work` and returns its value, or nil at once when Ctrl-C comes first (`work` is cancelled;
    /// what it already handed to the store may still finish).
    func interruptible<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value? {
        let outcome = Outcome<Value>()
        defer { lock.withLock { onInterrupt = nil } }
        return try await withCheckedThrowingContinuation { continuation in
            outcome.wait(with: continuation)
            let task = Task {
                do {
                    outcome.finish(.success(try await work()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            lock.withLock {
                onInterrupt = {
                    task.cancel()
                    outcome.finish(.success(nil))
                }
            }
        }
    }
}

/// The continuation an interruptible wait resumes once: with the work's result, or nil on Ctrl-C.
private final class Outcome<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `continuation` is touched only under `lock`.
    private let lock = Lock()
    private var continuation: CheckedContinuation<Value?, any Error>?

    func wait(with continuation: CheckedContinuation<Value?, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Resumes the wait with `result`, unless it was resumed already.
    func finish(_ result: Result<Value?, any Error>) {
        let waiting: CheckedContinuation<Value?, any Error>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}
