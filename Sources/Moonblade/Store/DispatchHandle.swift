/// The result of a dispatch, awaited like a `Task`: `try await store.dispatch(item).value`.
///
/// Discard it to fire and forget. `value` is `Void` for state updaters and plain side effects, and
/// the returned value for a ``ReturningSideEffect``; an error thrown by the item or by an interceptor
/// is thrown there. A handle is cheap to copy and can be awaited any number of times.
public struct DispatchHandle<Value: Sendable>: Sendable {
    enum Storage: Sendable {
        /// The item was handled synchronously by the dispatching thread: no allocation.
        case completed(Result<Value, any Error>)
        /// The item was queued behind another dispatch, or the store was not ready yet.
        case pending(DispatchCompletion)
        /// The item is a side effect running in this task.
        case task(Task<any Sendable, any Error>)
    }

    let storage: Storage

    /// Waits for the dispatched item and returns its value, or throws its error.
    ///
    /// Waiting does not cancel anything: like `Task.value`, it only observes.
    public var value: Value {
        get async throws {
            switch storage {
            case .completed(let result):
                return try result.get()
            case .pending(let completion):
                return try Self.cast(await completion.handle.value)
            case .task(let task):
                return try Self.cast(await task.value)
            }
        }
    }

    /// Sees a type-erased result as a `Value`. A `Void` handle accepts any value (it only waits), so
    /// an updater replaced by a returning side effect still resolves.
    static func cast(_ value: any Sendable) throws -> Value {
        if let value = value as? Value {
            return value
        }
        if let void = () as? Value {
            return void
        }
        throw StoreError.typeMismatch(
            expected: String(reflecting: Value.self),
            found: String(reflecting: type(of: value))
        )
    }
}
