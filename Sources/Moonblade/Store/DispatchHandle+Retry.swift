extension DispatchHandle {
    /// Dispatches with `attempt` now and, while the dispatch fails, again up to `retries` more times,
    /// `delay` apart; the returned handle resolves to the first success or to the last error.
    ///
    /// The first attempt is made before this returns, so it keeps its place in the dispatch order; an
    /// attempt that succeeds at once (an applied updater) costs nothing more. Otherwise the retries run
    /// in a task of their own, which ``cancel()`` stops: the attempt in flight is cancelled, no further
    /// attempt is made, and the handle reports that attempt's outcome (a `CancellationError` if the
    /// loop was waiting out `delay`). A negative `retries` dispatches nothing: the handle fails with
    /// ``StoreError/invalidRetryCount(_:)``.
    package static func retrying(
        retries: Int, delay: Duration, _ attempt: @escaping @Sendable () -> Self
    ) -> Self {
        // A count Hydra's `.retry(0)` ports to: Hydra rejects it with an error, and so does this.
        guard retries >= 0 else { return .failed(StoreError.invalidRetryCount(retries)) }
        let first = attempt()
        guard retries > 0 else { return first }
        if case .completed(.success) = first.status { return first }
        // A first attempt queued behind another item: the retries need the store's draining thread.
        var queued: DispatchCompletion?
        if case .pending(let completion) = first.status { queued = completion }
        return Self(
            status: .task(
                Task {
                    var current = first.status
                    var remaining = retries
                    while true {
                        let status = current
                        do {
                            return try await withTaskCancellationHandler {
                                try await status.value
                            } onCancel: {
                                status.cancel()
                            }
                        } catch {
                            guard remaining > 0, !Task.isCancelled else { throw error }
                            remaining -= 1
                            if delay > .zero { try await Task.sleep(for: delay) }
                            current = attempt().status
                        }
                    }
                }, queued: queued))
    }
}
