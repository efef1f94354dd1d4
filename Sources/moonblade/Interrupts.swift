import Foundation
import Moonblade

/// Ctrl-C while the repl runs a dispatch: SIGINT, caught so it stops the dispatch instead of the
/// session. The first stops the plugin code (the dispatch then fails, and its failure is reported);
/// a second, for work that does not stop (a Swift dependency that never answers), stops the wait.
final class Interrupts: @unchecked Sendable {
    // @unchecked Sendable: `catcher` is set once, in init; `waiting` is touched only under `lock`
    // (a pthread `Lock`, which the thread sanitizer follows; it does not follow `Synchronization.Mutex`).
    /// Set once the rest is, so that its handler can hold this object weakly.
    private var catcher: SignalCatcher?
    private let lock = Lock()
    /// The dispatch being waited for: what the first Ctrl-C does, what the next one does, and whether
    /// the first has come.
    private var waiting: (stop: @Sendable () -> Void, abandon: @Sendable () -> Void, stopped: Bool)?

    init() {
        catcher = SignalCatcher([SIGINT]) { [weak self] _ in self?.interrupt() }
    }

    private func interrupt() {
        let action: (@Sendable () -> Void)? = lock.withLock {
            guard let current = waiting else { return nil }
            waiting?.stopped = true
            return current.stopped ? current.abandon : current.stop
        }
        action?()
    }

    /// Runs `work` and returns its value. The first Ctrl-C meanwhile calls `stop` (which should make
    /// `work` end soon, failing); the next one returns nil at once (`work` is cancelled; what it
    /// already handed to the store may still finish).
    func interruptible<Value: Sendable>(
        stop: @escaping @Sendable () -> Void, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let outcome = Outcome<Value>()
        defer { lock.withLock { waiting = nil } }
        return try await withCheckedThrowingContinuation { continuation in
            outcome.wait(with: continuation)
            let task = Task {
                do {
                    outcome.finish(.success(try await work()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            let abandon: @Sendable () -> Void = {
                task.cancel()
                outcome.finish(.success(nil))
            }
            lock.withLock { waiting = (stop, abandon, false) }
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
