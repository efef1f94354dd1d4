import Dispatch
import Foundation
import Moonblade

/// Ctrl-C while the repl runs a dispatch: SIGINT, caught so it ends the wait instead of the session.
final class Interrupts: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once and only cancelled in deinit; dispatch sources are
    // thread-safe. `onInterrupt` is touched only under `lock` (a pthread `Lock`, which the thread
    // sanitizer follows; it does not follow `Synchronization.Mutex`).
    private let source: any DispatchSourceSignal
    private let lock = Lock()
    /// What the next SIGINT does: stop the wait in progress, if there is one.
    private var onInterrupt: (@Sendable () -> Void)?

    init() {
        signal(SIGINT, SIG_IGN)  // the dispatch source hears it; the process is not ended
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in self?.interrupt() }
        source.resume()
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

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
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
