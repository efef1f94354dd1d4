/// Passes an item on to the rest of the interceptor chain (and, at the end of it, to the store).
///
/// Call it synchronously, before your interceptor returns: the store runs interceptors inside its
/// serial drain, and the state and listeners are updated inside `next`.
public typealias StoreInterceptorNext = (_ dispatchable: any Dispatchable) throws -> Void

/// A Katana interceptor: sees every dispatched item before the store handles it.
///
/// The store calls the outer closure once, when it is set up, with its ``InterceptorContext``; the
/// middle one once, with the rest of the chain; the inner one for every item, on the thread that is
/// draining the store, one item at a time. Interceptors compose in array order (the first is the
/// outermost; code after `next` unwinds in reverse order). The inner closure may:
/// - pass the item on with `try next(item)`: an updater has been applied when it returns; a side effect
///   has been started in its task, and may still be running (Katana ran it to its end inside `next`; a
///   ``SideEffectInterceptor``'s `next` returns once it has finished);
/// - replace it by calling `next` with another item: an item of the same kind (updater or side
///   effect) runs in its place and its result goes to the original handle; an item of another kind is
///   re-dispatched through the whole chain, after the items already queued (the interceptors further in
///   see it then, not before), and the original handle
///   resolves to the replacement's result (a `Void` handle ignores a returned value; a handle expecting
///   a value gets none from an updater, as below);
/// - drop it by returning without calling `next`: a dropped updater or plain side effect resolves
///   successfully with no change and no listener call (a dropped ``ReturningSideEffect`` has no value
///   to return: its handle gives nil when its value can be nil, an `Optional`, and otherwise fails with
///   ``StoreError/typeMismatch(expected:found:)``);
/// - throw: before `next`, the item never runs; either way the error reaches ``DispatchHandle/value``.
///
/// Dispatching from an interceptor never deadlocks: the item is queued and runs after this one. For
/// the same reason this chain cannot wait for what it dispatches: a blocking
/// ``DispatchHandle/wait(file:line:)`` here fails at once with ``StoreError/unservableWait(place:processing:)``.
/// To wait for a dispatch before passing a side effect on (Katana's interceptor blocking on a dispatch),
/// use a ``SideEffectInterceptor``, which runs in the side effect's task and may `await`; state updaters
/// have only this synchronous chain.
public typealias StoreInterceptor =
    (_ context: InterceptorContext) -> (_ next: @escaping StoreInterceptorNext) -> StoreInterceptorNext
