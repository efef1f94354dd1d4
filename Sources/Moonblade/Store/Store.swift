#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The single source of truth of an application: holds a state of type `S`, applies the state updaters
/// dispatched to it, runs its side effects with dependencies of type `D`, and notifies listeners.
///
/// ```swift
/// let store = Store<AppState, AppDependencies>(interceptors: [DispatchableLogger.interceptor()])
/// store.dispatch(Increment())                   // fire and forget
/// try await store.dispatch(Load()).value         // wait for a side effect
/// let unsubscribe = store.addListener { old, new in render(new) }
/// ```
///
/// Items are processed one at a time by whichever thread dispatches to an idle store: it runs the
/// item (and any items queued meanwhile) inline, with no task or queue hop. Dispatching while another
/// thread is doing so, or from inside an updater, interceptor or listener, queues the item for that
/// thread; no lock is held while user code runs.
public final class Store<S: State, D: SideEffectDependencyContainer>: AnyStore, @unchecked Sendable {
    // @unchecked Sendable: the mutable state shared between threads is only touched while holding
    // `lock`. `dependencyContainer` and `interceptorChain` are written only in `init`, before the
    // store is ready. `processing` and `currentStatus` belong to the draining thread; the draining
    // role passes from thread to thread through `lock`, which orders those accesses.

    let lock = Lock()
    let configuration: StoreConfiguration

    // Guarded by `lock`, so the runtime exclusivity checks are redundant. Waived only where they cost: each
    // share below is of a native counter dispatch (Scripts/perf-gate dispatch-native), counted from the
    // calls to swift_beginAccess/endAccess with every waiver lifted; a Lua counter dispatch pays the same
    // instructions, 0.5 to 1.2 % of it each. The other properties' checks the optimizer removes by itself.
    /// Written only by the draining thread, under `lock`; so that thread alone may read it without.
    @exclusivity(unchecked) var storedState: S  // 9.5 % of a native dispatch
    /// Whether some thread is processing items; only that thread runs items until it clears this.
    /// `init` holds the role from the start, so items dispatched before the store is ready are queued.
    var isDraining = true
    @exclusivity(unchecked) var queue = FIFOQueue<PendingDispatch>()  // 5.8 % of a native dispatch
    @exclusivity(unchecked) var listeners: [StoreListenerEntry<S>] = [] {  // 3.8 % of a native dispatch
        // Kept beside the array: its `count` in code generic over `S` looks up the element's metadata.
        didSet { listenerCount = listeners.count }
    }
    /// How many `listeners` there are; read by every updater dispatch.
    var listenerCount = 0
    var nextListenerID = 0
    /// Side effect tasks started and not yet finished.
    var runningSideEffects = 0
    /// Callers of ``waitUntilIdle()`` waiting for the store to have nothing left to do.
    @exclusivity(unchecked) var idleWaiters: [CheckedContinuation<Void, Never>] = []  // 3.8 % of a native dispatch

    // Written once in `init`; optional only because they are built by closures that need `self`.
    var dependencyContainer: D?
    var interceptorChain: StoreInterceptorNext?
    /// The asynchronous chain side effects run through in their task; nil when there is none.
    var sideEffectChain: SideEffectInterceptorNext?
    /// `SideEffectContext<S, D>.self`, kept with its metadata and its conformance to
    /// `AnySideEffectContext` (see ``StoreSideEffectContext``).
    let sideEffectContextType: any StoreSideEffectContext.Type = SideEffectContext<S, D>.self

    // Owned by the draining thread, one item at a time: no overlapping access is possible.
    /// The thread holding the draining role while ``isDraining`` is set, so that a blocking wait there,
    /// which could never be served, fails instead.
    var drainingThread = pthread_self()
    /// The type of the item being processed, to tell an in-place replacement from a re-dispatch: a
    /// metatype, which costs nothing to copy, where the item itself is copied through value witnesses.
    /// A box of its own, which the interceptor chain's links read without reaching the store.
    let processing = ProcessingItem()
    /// The status the innermost `next` produced for the item being processed, if not a plain success.
    @exclusivity(unchecked) var currentStatus: DispatchStatus?  // 9.5 % of a native dispatch
    /// How many reactions down a chain the item being processed was dispatched.
    var currentCascadeDepth = 0
    /// The open transaction of the item being processed, if an interceptor opened one.
    var currentTransaction: StoreTransaction<S>?
    /// Counts the state values stored; advanced by the draining thread under `lock`.
    package let stateVersions = StateVersionCounter()
    /// Ended when the store is freed: what the interceptor chain's innermost link checks.
    let lifetime = StoreLifetime()

    /// Creates a store and makes it ready.
    ///
    /// In order: the dependency container is built (its `dispatch` and `getState` work at once: items
    /// are queued and `getState` returns `S()`); the state initializer runs; the interceptors are set up
    /// (an ``ObserverInterceptor`` fires its `.onStart` rules then); the store becomes ready and runs
    /// the items queued so far, in order, before `init` returns. No run loop is involved.
    ///
    /// The state initializer runs on the caller's thread, before `init` returns: Katana's
    /// `stateInitializerAsyncProvider` is not taken, because its use (not blocking the main thread
    /// while the state is built) is served better by building the state before creating the store
    /// (`let initial = await load(); Store(stateInitializer: { initial })`), or by an `.onStart` side
    /// effect that loads it; a store that is ready when `init` returns needs no ``isReady`` polling.
    ///
    /// - Parameters:
    ///   - interceptors: the interceptors, outermost first.
    ///   - sideEffectInterceptors: the interceptors that side effects then pass in their own task,
    ///     outermost first; they may `await` (see ``SideEffectInterceptor``).
    ///   - stateInitializer: returns the initial state; `S()` by default.
    ///   - dependenciesInitializer: builds the dependency container; `D.init(dispatch:getState:)` by default.
    ///   - configuration: settings such as the priority of side effect tasks.
    public init(
        interceptors: [StoreInterceptor] = [],
        sideEffectInterceptors: [SideEffectInterceptor] = [],
        stateInitializer: () -> S = { S() },
        dependenciesInitializer: (_ dispatch: @escaping AnyDispatch, _ getState: @escaping GetState) -> D =
            D.init(dispatch:getState:),
        configuration: StoreConfiguration = .default
    ) {
        storedState = S()
        self.configuration = configuration
        let context = InterceptorContext(store: self)
        dependencyContainer = dependenciesInitializer(
            { context.anyDispatch($0) },
            { context.getAnyState() }
        )
        let initialState = stateInitializer()
        lock.withLock { storedState = initialState }
        let stages = interceptors.map { $0(context) }
        // The innermost stage hands items straight to `apply`; every other one through a link that takes a
        // replacement in place or re-dispatches it there, so that no interceptor further in sees an item
        // the store would only queue.
        // Borrowed, not retained: the chain runs inside `process`, on the store itself, so the store
        // outlives every call made as the contract says. A weak load and the store's retain and
        // release (slow ones: the store is also held weakly) were 11 % of a native dispatch
        // (Scripts/profile dispatch native: 2,057 with them, 1,830 borrowed with the lifetime check).
        let store = Unmanaged.passUnretained(self)
        let lifetime = self.lifetime
        var chain: StoreInterceptorNext = { dispatchable in
            guard !lifetime.isOver else { throw StoreError.storeReleased }
            try store._withUnsafeGuaranteedRef { try $0.apply(dispatchable) }
        }
        for (index, stage) in stages.enumerated().reversed() {
            chain = stage(index == stages.count - 1 ? chain : link(to: chain))
        }
        interceptorChain = chain
        if !sideEffectInterceptors.isEmpty {
            let innermost: SideEffectInterceptorNext = { sideEffect in
                guard let context = SideEffectRun.context else {
                    preconditionFailure("a side effect interceptor's next was called outside of a side effect's task")
                }
                return try await sideEffect.anySideEffect(context)
            }
            sideEffectChain = sideEffectInterceptors.map { $0(context) }.reversed().reduce(innermost) { next, stage in
                stage(next)
            }
        }
        drainQueue()
    }

    deinit {
        lifetime.end()
    }

    /// The current state.
    public var state: S { lock.withLock { storedState } }

    /// Whether the store has finished starting up; until then, dispatched items wait in a queue.
    ///
    /// Always true: nothing outside `init` can reach the store before `init` has made it ready.
    public var isReady: Bool { true }

    /// The dependency container, built once and shared by every side effect of this store.
    public var dependencies: D { dependencyContainer! }

    /// How many reactions down a chain the item being processed was dispatched: 0 for an item nobody
    /// caused, one more than its cause for an item dispatched with ``anyDispatch(_:cascadeDepth:)`` or
    /// re-dispatched by an interceptor that replaced it with an item of another kind.
    ///
    /// Meaningful only to interceptors, while they handle an item.
    package var cascadeDepth: Int { currentCascadeDepth }

    /// The current state, type-erased.
    public var anyState: any State { state }

    /// The dependency container, type-erased.
    public var anyDependencies: any SideEffectDependencyContainer { dependencies }
}
