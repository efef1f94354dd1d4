import Dispatch
import Foundation
import Synchronization

/// Ctrl-C while the repl runs a dispatch: SIGINT, caught so it ends the wait instead of the session.
final class Interrupts: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once and only cancelled in deinit; dispatch sources are
    // thread-safe.
    private let source: any DispatchSourceSignal
    /// What the next SIGINT does: stop the wait in progress, if there is one.
    private let onInterrupt = Mutex<(@Sendable () -> Void)?>(nil)

    init() {
        signal(SIGINT, SIG_IGN)  // the dispatch source hears it; the process is not ended
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in self?.onInterrupt.withLock { $0 }?() }
        source.resume()
    }

    /// Runs `work` and returns its value, or nil at once when Ctrl-C comes first (`work` is cancelled;
    /// what it already handed to the store may still finish).
    func interruptible<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value? {
        let outcome = Mutex<CheckedContinuation<Value?, any Error>?>(nil)
        let finish = { @Sendable (result: Result<Value?, any Error>) in
            outcome.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        defer { onInterrupt.withLock { $0 = nil } }
        return try await withCheckedThrowingContinuation { continuation in
            outcome.withLock { $0 = continuation }
            let task = Task {
                do {
                    finish(.success(try await work()))
                } catch {
                    finish(.failure(error))
                }
            }
            onInterrupt.withLock {
                $0 = {
                    task.cancel()
                    finish(.success(nil))
                }
            }
        }
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
