extension DispatchHandle where Value == any Sendable {
    /// A handle to the same dispatch whose value is seen as a `T`.
    func typed<T: Sendable>() -> DispatchHandle<T> {
        switch storage {
        case .completed(let result):
            DispatchHandle<T>(
                storage: .completed(
                    result.flatMap { value in
                        Result { try DispatchHandle<T>.cast(value) }
                    }))
        case .pending(let completion):
            DispatchHandle<T>(storage: .pending(completion))
        case .task(let task):
            DispatchHandle<T>(storage: .task(task))
        }
    }

    /// A handle to the same dispatch that only waits: like `typed()` for `Void`, without a runtime cast.
    func voided() -> DispatchHandle<Void> {
        switch storage {
        case .completed(let result):
            DispatchHandle<Void>(storage: .completed(result.map { _ in () }))
        case .pending(let completion):
            DispatchHandle<Void>(storage: .pending(completion))
        case .task(let task):
            DispatchHandle<Void>(storage: .task(task))
        }
    }

    /// A handle that has already failed with `error`.
    static func failed(_ error: any Error) -> Self {
        Self(storage: .completed(.failure(error)))
    }

    /// The handle of an updater that was applied (or dropped) without error.
    static var succeeded: Self {
        Self(storage: .completed(.success(())))
    }
}
