/// Dispatching again when a dispatch fails: Katana's (Hydra's) `store.dispatch(item).retry(n)`.
///
/// `retries` counts the attempts after the first: `dispatch(item, retries: 2)` runs the item at most
/// three times. (Hydra's `.retry(n)` counts every attempt, so it ports as `retries: n - 1`.) Each
/// attempt is a whole new dispatch through the interceptors; an attempt that fails leaves the state as
/// it was (an updater's change is all or nothing), so work a side effect does only once it succeeds is
/// done once. The handle resolves to the first attempt that succeeds (a ``ReturningSideEffect``'s value)
/// or to the error of the last one; ``DispatchHandle/cancel()`` stops the retries. A negative `retries`
/// (Hydra's `.retry(0)`) dispatches nothing and fails with ``StoreError/invalidRetryCount(_:)``.
extension Dispatcher {
    /// Dispatches a state updater, and again up to `retries` times, `delay` apart, while it fails.
    @discardableResult
    public func dispatch(
        _ updater: some AnyStateUpdater, retries: Int, delay: Duration = .zero
    ) -> DispatchHandle<Void> {
        // No closure (an allocation) when there is nothing to retry.
        guard retries != 0 else { return dispatch(updater) }
        return .retrying(retries: retries, delay: delay) { self.dispatch(updater) }
    }

    /// Dispatches a plain side effect, and again up to `retries` times, `delay` apart, while it fails.
    @discardableResult
    public func dispatch(
        _ sideEffect: some AnySideEffect, retries: Int, delay: Duration = .zero
    ) -> DispatchHandle<Void> {
        // No closure (an allocation) when there is nothing to retry.
        guard retries != 0 else { return dispatch(sideEffect) }
        return .retrying(retries: retries, delay: delay) { self.dispatch(sideEffect) }
    }

    /// Dispatches a side effect that returns a value, and again up to `retries` times, `delay` apart,
    /// while it fails; the handle's value is what the attempt that succeeded returned.
    @discardableResult
    public func dispatch<Effect: ReturningSideEffect>(
        _ sideEffect: Effect, retries: Int, delay: Duration = .zero
    ) -> DispatchHandle<Effect.ReturnValue> {
        // No closure (an allocation) when there is nothing to retry.
        guard retries != 0 else { return dispatch(sideEffect) }
        return .retrying(retries: retries, delay: delay) { self.dispatch(sideEffect) }
    }

    /// Dispatches any item, and again up to `retries` times, `delay` apart, while it fails.
    @discardableResult
    public func anyDispatch(
        _ dispatchable: any Dispatchable, retries: Int, delay: Duration = .zero
    ) -> DispatchHandle<any Sendable> {
        // No closure (an allocation) when there is nothing to retry.
        guard retries != 0 else { return anyDispatch(dispatchable) }
        return .retrying(retries: retries, delay: delay) { self.anyDispatch(dispatchable) }
    }
}
