/// Passes a side effect on to the rest of the asynchronous chain and, past its end, runs it; returns
/// the side effect's value (`()` for a plain ``SideEffect``).
public typealias SideEffectInterceptorNext = @Sendable (_ sideEffect: any AnySideEffect) async throws -> any Sendable

/// An interceptor for side effects that may `await`: it runs in the side effect's own task, so it can
/// wait for dispatches it makes, see the state before and after them, and then call `next`.
///
/// ```swift
/// let refreshFirst: SideEffectInterceptor = { context in
///     { next in
///         { sideEffect in
///             try await context.dispatch(Refresh()).value   // applied before the side effect runs
///             return try await next(sideEffect)             // the side effect's value comes back
///         }
///     }
/// }
/// let store = Store<AppState, AppDependencies>(sideEffectInterceptors: [refreshFirst])
/// ```
///
/// The store calls the outer closure once, when it is set up, with its ``InterceptorContext``; the
/// middle one once, with the rest of the chain; the inner one for every side effect, in that side
/// effect's task, concurrently with other side effects, after the synchronous ``StoreInterceptor``
/// chain let the side effect through (every ``StoreInterceptor`` is outside every
/// `SideEffectInterceptor`). Side effect interceptors compose in array order, the first outermost.
/// The inner closure may:
/// - pass the side effect on with `try await next(sideEffect)` and return (or change) its value;
/// - replace it with another side effect, which runs in its place with the same context;
/// - drop it by returning a value without calling `next` (for a ``ReturningSideEffect`` that value
///   must have its `ReturnValue` type, or the handle fails with ``StoreError/typeMismatch(expected:found:)``);
/// - throw: the error reaches ``DispatchHandle/value``.
///
/// State updaters never pass through this chain: they keep the synchronous one, which runs inside the
/// store's serial drain and so cannot wait for another dispatch (see ``DispatchHandle/wait(file:line:)``).
public typealias SideEffectInterceptor =
    (_ context: InterceptorContext) -> (_ next: @escaping SideEffectInterceptorNext) -> SideEffectInterceptorNext

/// The context of the side effect whose task is running the asynchronous interceptor chain, for the
/// chain's innermost `next`.
enum SideEffectRun {
    @TaskLocal static var context: (any AnySideEffectContext)?
}
