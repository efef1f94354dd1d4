#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Store {
    /// Dispatches a state updater; see ``Dispatcher``.
    ///
    /// If no other thread is processing items and the store is ready, the updater is applied on this
    /// thread before this returns (the handle is then already complete, and nothing was allocated),
    /// followed by anything queued meanwhile; otherwise it is queued for the thread that is processing.
    @discardableResult
    public func dispatch(_ updater: some AnyStateUpdater) -> DispatchHandle<Void> {
        DispatchHandle(status: submit(.updater(updater)))
    }

    /// Dispatches a plain side effect; see ``Dispatcher``. Its type says what it is: no runtime casts.
    @discardableResult
    public func dispatch(_ sideEffect: some AnySideEffect) -> DispatchHandle<Void> {
        DispatchHandle(status: submit(.sideEffect(sideEffect)))
    }

    /// Dispatches a side effect that returns a value; see ``Dispatcher``. No runtime casts either.
    @discardableResult
    public func dispatch<Effect: ReturningSideEffect>(_ sideEffect: Effect) -> DispatchHandle<Effect.ReturnValue> {
        DispatchHandle(status: submit(.sideEffect(sideEffect)))
    }

    /// Dispatches a side effect that ends its own dispatch (``SelfEndingSideEffect``); see ``Dispatcher``.
    @discardableResult
    package func dispatch<Effect: ReturningSideEffect & SelfEndingSideEffect>(_ sideEffect: Effect)
        -> DispatchHandle<Effect.ReturnValue>
    {
        DispatchHandle(status: submit(.selfEndingSideEffect(sideEffect)))
    }

    /// Dispatches any item; see ``Dispatcher``. Runs it like the typed `dispatch` of an updater.
    @discardableResult
    public func anyDispatch(_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable> {
        anyDispatch(dispatchable, cascadeDepth: 0)
    }

    /// Dispatches any item as a consequence of the item being processed `cascadeDepth` steps down a
    /// chain of reactions (0 for an item nobody caused).
    ///
    /// The depth travels with the item to ``cascadeDepth``, and from a side effect to what it dispatches,
    /// so rules that react to items (the plugin host's observers) can stop a chain that keeps
    /// re-triggering itself.
    @discardableResult
    package func anyDispatch(_ dispatchable: any Dispatchable, cascadeDepth: Int) -> DispatchHandle<any Sendable> {
        guard let item = DispatchItem(dispatchable) else {
            return .failed(StoreError.unsupportedDispatchable(String(reflecting: type(of: dispatchable))))
        }
        return DispatchHandle(status: submit(item, cascadeDepth: cascadeDepth))
    }

    /// Runs `item` on this thread if no thread holds the draining role, else queues it for the drainer.
    func submit(_ item: DispatchItem, cascadeDepth: Int = 0) -> DispatchStatus {
        let queued = lock.withLock { () -> DispatchCompletion? in
            guard !isDraining else { return enqueue(item, cascadeDepth: cascadeDepth) }
            isDraining = true
            drainingThread = pthread_self()
            return nil
        }
        if let queued {
            return .pending(queued)
        }
        let status = process(item, cascadeDepth: cascadeDepth)
        drainQueue()
        return status
    }

    /// Queues `item` and returns the box its handle waits on. Call with `lock` held.
    private func enqueue(_ item: DispatchItem, cascadeDepth: Int) -> DispatchCompletion {
        let completion = DispatchCompletion(lock: lock, store: self)
        queue.append(PendingDispatch(item: item, cascadeDepth: cascadeDepth, completion: completion))
        return completion
    }

    /// Processes queued items until the queue is empty, then gives up the draining role.
    ///
    /// The caller must hold the draining role. Seeing the queue empty and giving up the role happen
    /// under one lock, so an item queued concurrently is either seen here or drained by its dispatcher.
    func drainQueue() {
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        while let pending = lock.withLock({ () -> PendingDispatch? in
            let next = queue.popFirst()
            if next == nil {
                isDraining = false
                if runningSideEffects == 0 { swap(&idleWaiters, &self.idleWaiters) }
            }
            return next
        }) {
            pending.completion.resolve(with: process(pending.item, cascadeDepth: pending.cascadeDepth))
        }
        for waiter in idleWaiters { waiter.resume() }
    }

    /// Waits until the store has nothing left to do: no item queued or being processed, and no side
    /// effect running, including those started by what ran meanwhile (observers, nested dispatches).
    ///
    /// For programs that must not stop while work is in flight, such as a command-line host before it
    /// exits. Returns at once when the store is idle. Never call it from a side effect of the same
    /// store: that side effect is part of the work it waits for.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let idle = lock.withLock {
                guard hasWork else { return true }
                idleWaiters.append(waiter)
                return false
            }
            if idle { waiter.resume() }
        }
    }

    /// Whether the store has nothing to do at this moment, as ``waitUntilIdle()`` means it: for a caller
    /// that waits for something the store's work may bring about, to know when nothing more can come.
    package var isIdle: Bool {
        lock.withLock { !hasWork }
    }

    /// Whether an item is being processed or queued, or a side effect runs; read under `lock`.
    private var hasWork: Bool { isDraining || runningSideEffects > 0 }

    /// The error a blocking wait at `place` for a queued item must fail with when the calling thread is
    /// the one draining this store: the item could only run once the wait returned.
    func unservableWait(at place: String) -> StoreError? {
        guard isOnDrainingThread else { return nil }
        // This thread holds the draining role, so it may read what it is processing.
        return .unservableWait(place: place, processing: processing.type?.name ?? "a listener")
    }

    /// Whether the calling thread holds the draining role.
    var isOnDrainingThread: Bool {
        lock.withLock { isDraining && pthread_equal(drainingThread, pthread_self()) != 0 }
    }

    /// Runs one item through the interceptor chain and returns its status. Draining thread only.
    private func process(_ item: DispatchItem, cascadeDepth: Int) -> DispatchStatus {
        processing.type = item.metatype
        currentCascadeDepth = cascadeDepth
        defer {
            processing.type = nil
            currentStatus = nil
        }
        do {
            try interceptorChain!(item.dispatchable)
        } catch {
            return .completed(.failure(error))
        }
        // No status: an updater was applied, or the item was dropped.
        return currentStatus ?? .succeeded
    }

    /// The `next` an interceptor is given when another one is further in: `next` itself for the item
    /// being processed and for a replacement of its kind; a replacement of the other kind is
    /// re-dispatched here, unseen further in (``takenInPlace(_:replacing:)``).
    func link(to next: @escaping StoreInterceptorNext) -> StoreInterceptorNext {
        let processing = processing
        return { [weak self] dispatchable in
            // Usually the item itself, which a compare of concrete types tells without the runtime's
            // conformance look-ups.
            if let type = processing.type, !type.isType(of: dispatchable) {
                guard let self else { throw StoreError.storeReleased }
                guard try self.takenInPlace(dispatchable, replacing: type) != nil else { return }
            }
            try next(dispatchable)
        }
    }

    /// Takes `dispatchable`, which an interceptor passed on in place of an item of type `original`: one
    /// of the same kind goes on in its place, its type now the one processed (returned); one of the
    /// other kind is a dispatch of its own through the whole chain, after the items already queued,
    /// which the original handle follows (nil). Draining thread only.
    func takenInPlace(_ dispatchable: any Dispatchable, replacing original: DispatchItem.Metatype) throws
        -> DispatchItem.Metatype?
    {
        guard let replacement = DispatchItem(dispatchable) else {
            throw StoreError.unsupportedDispatchable(String(reflecting: type(of: dispatchable)))
        }
        guard replacement.metatype.isUpdater == original.isUpdater else {
            currentStatus = .pending(lock.withLock { enqueue(replacement, cascadeDepth: currentCascadeDepth + 1) })
            return nil
        }
        processing.type = replacement.metatype
        return replacement.metatype
    }

    /// The innermost `next` of the interceptor chain: handles the item the interceptors let through.
    func apply(_ dispatchable: any Dispatchable) throws {
        guard var metatype = processing.type else {
            preconditionFailure("the interceptor chain ran outside of the store's drain")
        }
        if !metatype.isType(of: dispatchable) {
            guard let taken = try takenInPlace(dispatchable, replacing: metatype) else { return }
            metatype = taken
        }
        switch metatype {
        case .updater(let type): try applyUpdater(dispatchable, as: type)
        case .sideEffect(let type): currentStatus = startSideEffect(dispatchable, as: type)
        case .selfEndingSideEffect(let type): currentStatus = startSelfEndingSideEffect(dispatchable, as: type)
        }
    }

    /// Applies `dispatchable`, an `Original`.
    private func applyUpdater<Original: AnyStateUpdater>(_ dispatchable: any Dispatchable, as _: Original.Type) throws {
        try applyUpdater(Self.unwrap(dispatchable, as: Original.self))
    }

    /// Starts `dispatchable`, an `Original`.
    private func startSideEffect<Original: AnySideEffect>(_ dispatchable: any Dispatchable, as _: Original.Type)
        -> DispatchStatus
    {
        startSideEffect(Self.unwrap(dispatchable, as: Original.self))
    }

    /// The value in `dispatchable`, whose dynamic type the caller has compared with `Original`.
    ///
    /// A metatype compare and this identity take the place of an `as? Original` cast, which on a
    /// generic type costs a dynamic cast and a metadata look-up of `Optional<Original>` per item.
    private static func unwrap<Item: Dispatchable, Original>(_ dispatchable: Item, as _: Original.Type) -> Original {
        // 3.8 % of a native counter dispatch (Scripts/perf-gate dispatch-native: `as!` costs 77 instructions).
        unsafeBitCast(dispatchable, to: Original.self)
    }

    /// Applies `updater` to a copy of the state, stores the copy and calls the listeners.
    private func applyUpdater(_ updater: some AnyStateUpdater) throws {
        // Only the draining thread writes `storedState`, so it reads it without the lock.
        let oldState = storedState
        var newState = oldState
        try updater.updateAnyState(&newState)
        // Locked by hand: `withLock` returning the listeners looks up the metadata of their array
        // type on every item, in code generic over `S`.
        lock.lock()
        storedState = newState
        stateVersions.advance()
        let listeners = self.listeners
        let listenerCount = self.listenerCount
        lock.unlock()
        if let transaction = currentTransaction {
            transaction.record(old: oldState, new: newState, listeners: listeners)
            return
        }
        // None to call: nothing to hand to the provider, and no generic iteration to pay for.
        guard listenerCount != 0 else { return }
        notify(listeners, old: oldState, new: newState)
    }

    /// Calls `listeners` with a change, here or where ``StoreConfiguration/listenersAsyncProvider`` says.
    func notify(_ listeners: [StoreListenerEntry<S>], old oldState: S, new newState: S) {
        guard let provider = configuration.listenersAsyncProvider else {
            return Self.call(listeners, old: oldState, new: newState)  // inline: no closure to allocate
        }
        // The work runs later: a listener unsubscribed meanwhile is skipped, as Katana, which reads its
        // listeners when the provider runs them, skips it. Weak, so held work does not keep the store.
        provider { [weak self] in
            guard let self else { return }
            let subscribed = Set(self.lock.withLock { self.listeners }.map(\.id))  // many listeners: no n × m scan
            let stillSubscribed = listeners.filter { subscribed.contains($0.id) }
            Self.call(stillSubscribed, old: oldState, new: newState)
        }
    }

    private static func call(_ listeners: [StoreListenerEntry<S>], old oldState: S, new newState: S) {
        for listener in listeners {
            listener.callback(oldState, newState)
        }
    }

    /// Starts `sideEffect` in its own task, with a context that keeps this store alive while it runs.
    private func startSideEffect(_ sideEffect: some AnySideEffect) -> DispatchStatus {
        let context = sideEffectContext(sideEffectContextType)
        lock.withLock { runningSideEffects += 1 }
        return .task(
            Task(priority: configuration.sideEffectPriority) {
                defer { self.sideEffectFinished() }
                guard let chain = self.sideEffectChain else { return try await sideEffect.anySideEffect(context) }
                return try await SideEffectRun.$context.withValue(context) { try await chain(sideEffect) }
            })
    }

    /// Starts `dispatchable`, an `Original`, as ``startSideEffect(_:)`` does, its handle waiting on a
    /// ``SideEffectEnding`` that its task ends, unless the side effect ends it first.
    private func startSelfEndingSideEffect<Original: SelfEndingSideEffect>(_ dispatchable: any Dispatchable, as _: Original.Type)
        -> DispatchStatus
    {
        let sideEffect = Self.unwrap(dispatchable, as: Original.self)
        let context = sideEffectContext(sideEffectContextType)
        let ending = SideEffectEnding(lock: lock, store: self)
        lock.withLock { runningSideEffects += 1 }
        // Shaped as `startSideEffect`'s task, returning the value too: a `Task<Void, Never>` would wrap
        // the closure in a thunk whose frame takes the task's allocator past its first slab (a malloc
        // per side effect).
        ending.run(
            in: Task(priority: configuration.sideEffectPriority) {
                do {
                    // Under side effect interceptors, the side effect runs as any other: without its ending.
                    let value =
                        if let chain = self.sideEffectChain {
                            try await SideEffectRun.$context.withValue(context) { try await chain(sideEffect) }
                        } else {
                            try await sideEffect.anySideEffect(context, ending: ending)
                        }
                    ending.end(returning: value)
                    return value
                } catch {
                    ending.end(throwing: error)
                    throw error
                }
            })
        return .ending(ending)
    }

    /// A context for a side effect this item starts, made as a `Context`: the type
    /// ``sideEffectContextType`` holds.
    private func sideEffectContext<Context: StoreSideEffectContext>(_: Context.Type) -> any AnySideEffectContext {
        Context(storeObject: self, cascadeDepth: currentCascadeDepth)
    }

    func sideEffectFinished() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            runningSideEffects -= 1
            guard runningSideEffects == 0, !isDraining else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension Store: SideEffectCounting {}
