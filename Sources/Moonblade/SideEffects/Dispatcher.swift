/// Something items can be dispatched to: a ``Store``, or the context a side effect or interceptor gets.
///
/// Fire and forget from synchronous code (`dispatch(item)`), or `try await dispatch(item).value` to
/// wait until the updater is applied (or the side effect has finished) and to receive its error.
public protocol Dispatcher: Sendable {
    /// Dispatches any item and returns a handle to its type-erased result.
    ///
    /// Prefer the typed `dispatch` overloads; this one is for code that only has an
    /// `any Dispatchable`. It finds out what the item is with runtime casts, which cost more than the
    /// rest of an updater dispatch.
    @discardableResult
    func anyDispatch(_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable>

    /// Dispatches a state updater; the handle's value is `Void` once it has been applied.
    @discardableResult
    func dispatch(_ updater: some AnyStateUpdater) -> DispatchHandle<Void>

    /// Dispatches a plain side effect; the handle's value is `Void` once it has finished. By default
    /// through ``anyDispatch(_:)``; a store sorts it by its type instead.
    @discardableResult
    func dispatch(_ sideEffect: some AnySideEffect) -> DispatchHandle<Void>

    /// Dispatches a side effect that returns a value: `try await dispatch(effect).value` is that value.
    /// By default through ``anyDispatch(_:)``; a store sorts it by its type instead.
    @discardableResult
    func dispatch<Effect: ReturningSideEffect>(_ sideEffect: Effect) -> DispatchHandle<Effect.ReturnValue>
}

extension Dispatcher {
    /// Dispatches a plain side effect; the handle's value is `Void` once it has finished.
    @discardableResult
    public func dispatch(_ sideEffect: some AnySideEffect) -> DispatchHandle<Void> {
        anyDispatch(sideEffect).typed()
    }

    /// Dispatches a side effect that returns a value: `try await dispatch(effect).value` is that value.
    @discardableResult
    public func dispatch<Effect: ReturningSideEffect>(
        _ sideEffect: Effect
    ) -> DispatchHandle<Effect.ReturnValue> {
        anyDispatch(sideEffect).typed()
    }
}
