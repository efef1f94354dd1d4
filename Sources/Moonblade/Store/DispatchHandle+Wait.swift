import Dispatch

extension DispatchHandle {
    /// Blocks the calling thread until the dispatched item has been handled, and returns its value or
    /// throws its error: Hydra's `try await(promise)`, for synchronous code that Katana let block.
    ///
    /// A wait that could never end fails at once instead: made on the thread that is draining the
    /// store (from a ``StoreInterceptor``, an updater or a listener) for an item that has not run yet,
    /// it throws ``StoreError/unservableWait(place:processing:)`` naming `file:line` and the item being
    /// processed. The dispatched item is still queued and runs after the current one. An interceptor
    /// that must wait for a dispatch before passing a side effect on is a ``SideEffectInterceptor``,
    /// which awaits ``value`` in the side effect's own task; state updaters cannot wait for one another.
    ///
    /// Elsewhere the thread is blocked (not suspended) until the item has been handled, so call it only
    /// from threads of your own, never from async code (where ``value`` is the way to wait).
    @available(*, noasync, message: "await the handle's value instead")
    public func wait(file: StaticString = #fileID, line: UInt = #line) throws -> Value {
        switch status {
        case .completed(let result):
            return try typed(try result.get())
        case .pending(let completion), .task(_, queued: let completion?):
            if let error = completion.unservableWait(at: "\(file):\(line)") { throw error }
        case .task, .ending:
            break
        }
        let outcome = BlockingOutcome()
        let status = status
        Task {
            do {
                outcome.finish(.success(try await status.value))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        return try typed(try outcome.wait().get())
    }
}

/// The outcome of a dispatch, handed from the task that awaited it to the thread blocked on it.
private final class BlockingOutcome: @unchecked Sendable {
    // @unchecked: `result` is written once before `done` is signalled and read only after it.
    private let done = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var result: Result<any Sendable, any Error>?

    func finish(_ result: Result<any Sendable, any Error>) {
        lock.withLock { self.result = result }
        done.signal()
    }

    func wait() -> Result<any Sendable, any Error> {
        done.wait()
        return lock.withLock { result! }
    }
}
