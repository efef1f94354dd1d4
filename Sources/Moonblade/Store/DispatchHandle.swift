/// The result of a dispatch, awaited like a `Task`: `try await store.dispatch(item).value`.
///
/// Discard it to fire and forget. `value` is `Void` for state updaters and plain side effects, and
/// the returned value for a ``ReturningSideEffect``; an error thrown by the item or by an interceptor
/// is thrown there. A handle is cheap to copy and can be awaited any number of times.
public struct DispatchHandle<Value: Sendable>: Sendable {
    let status: DispatchStatus

    /// Waits for the dispatched item and returns its value, or throws its error.
    ///
    /// Waiting does not cancel anything: like `Task.value`, it only observes. It runs on the caller's
    /// executor, so awaiting an item that has already been handled suspends nothing.
    public nonisolated(nonsending) var value: Value {
        get async throws {
            try typed(try await status.value)
        }
    }

    /// The dispatch's type-erased value seen as a `Value`.
    func typed(_ value: any Sendable) throws -> Value {
        // A `Void` handle only waits, so an updater replaced by a returning side effect still resolves.
        if Value.self == Void.self {
            return () as! Value
        }
        return try exactCast(value, to: Value.self)
    }

    /// Asks the work behind this dispatch to stop: a running side effect's task, or a retrying dispatch's
    /// loop, is cancelled (an item still queued is cancelled as soon as it starts).
    ///
    /// An updater that was already applied, or is applied before the request arrives, is not undone;
    /// like `Task.cancel()`, this only asks, and the side effect decides how to stop.
    public func cancel() {
        status.cancel()
    }

    /// The same dispatch, its value seen as a `T` when awaited.
    package func typed<T: Sendable>() -> DispatchHandle<T> {
        DispatchHandle<T>(status: status)
    }

    /// A handle that has already failed with `error`.
    static func failed(_ error: any Error) -> Self {
        Self(status: .completed(.failure(error)))
    }
}

/// How far a dispatch has got. Type-erased, so one dispatch can be seen through handles of any `Value`.
enum DispatchStatus: Sendable {
    /// The item was handled synchronously by the dispatching thread: no allocation.
    case completed(Result<any Sendable, any Error>)
    /// The item was queued behind another dispatch, or the store was not ready yet.
    case pending(DispatchCompletion)
    /// The item is a side effect running in this task, or retries running in it. `queued` is the
    /// queue box of the first attempt when it was queued: a blocking wait on the draining thread of
    /// its store could never end (the retries need that thread), and fails instead.
    case task(Task<any Sendable, any Error>, queued: DispatchCompletion? = nil)
    /// The item is a side effect that ends its own dispatch, which may come before its task ends.
    case ending(SideEffectEnding)

    /// An updater that was applied, or an item an interceptor dropped, without error.
    static var succeeded: Self { .completed(.success(())) }

    /// The item's type-erased value, once it has been handled.
    nonisolated(nonsending) var value: any Sendable {
        get async throws {
            switch self {
            case .completed(let result): try result.get()
            case .pending(let completion): try await completion.status.value
            case .task(let task, _): try await task.value
            case .ending(let ending): try await ending.outcome
            }
        }
    }

    /// Cancels the task behind the dispatch, now or, for a queued item, when it starts.
    func cancel() {
        switch self {
        case .completed: break
        case .pending(let completion): completion.cancel()
        case .task(let task, _): task.cancel()
        case .ending(let ending): ending.cancel()
        }
    }
}
