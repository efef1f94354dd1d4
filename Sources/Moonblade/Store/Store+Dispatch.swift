extension Store {
    /// Dispatches a state updater; see ``Dispatcher``.
    ///
    /// If no other thread is processing items and the store is ready, the updater is applied on this
    /// thread before this returns (the handle is then already complete, and nothing was allocated),
    /// followed by anything queued meanwhile; otherwise it is queued for the thread that is processing.
    @discardableResult
    public func dispatch(_ updater: some AnyStateUpdater) -> DispatchHandle<Void> {
        submit(.updater(updater)).voided()
    }

    /// Dispatches any item; see ``Dispatcher``. Runs it like the typed `dispatch` of an updater.
    @discardableResult
    public func anyDispatch(_ dispatchable: any Dispatchable) -> DispatchHandle<any Sendable> {
        guard let item = DispatchItem(dispatchable) else {
            return .failed(StoreError.unsupportedDispatchable(String(reflecting: type(of: dispatchable))))
        }
        return submit(item)
    }

    /// Runs `item` on this thread if the store is ready and idle, else queues it for the drainer.
    private func submit(_ item: DispatchItem) -> DispatchHandle<any Sendable> {
        let queued = lock.withLock { () -> DispatchCompletion? in
            guard ready, !isDraining else { return enqueue(item) }
            isDraining = true
            return nil
        }
        if let queued {
            return DispatchHandle(storage: .pending(queued))
        }
        let handle = process(item)
        drainQueue()
        return handle
    }

    /// Queues `item` and returns the box its handle waits on. Call with `lock` held.
    private func enqueue(_ item: DispatchItem) -> DispatchCompletion {
        let completion = DispatchCompletion()
        queue.append(PendingDispatch(item: item, completion: completion))
        return completion
    }

    /// Processes queued items until the queue is empty, then gives up the draining role.
    ///
    /// The caller must hold the draining role. Seeing the queue empty and giving up the role happen
    /// under one lock, so an item queued concurrently is either seen here or drained by its dispatcher.
    func drainQueue() {
        while let pending = lock.withLock({ () -> PendingDispatch? in
            let next = queue.popFirst()
            if next == nil {
                isDraining = false
            }
            return next
        }) {
            pending.completion.resolve(with: process(pending.item))
        }
    }

    /// Runs one item through the interceptor chain and returns its handle. Draining thread only.
    private func process(_ item: DispatchItem) -> DispatchHandle<any Sendable> {
        currentItem = item
        currentHandle = nil
        defer {
            currentItem = nil
            currentHandle = nil
        }
        do {
            try interceptorChain!(item.dispatchable)
        } catch {
            return .failed(error)
        }
        return currentHandle ?? .succeeded
    }

    /// The innermost `next` of the interceptor chain: handles the item the interceptors let through.
    func apply(_ dispatchable: any Dispatchable) throws {
        if case .updater(let original)? = currentItem, try applyUpdater(dispatchable, ifTypeOf: original) {
            return
        }
        // A side effect, or an item an interceptor replaced with one of another type.
        switch (currentItem, DispatchItem(dispatchable)) {
        case (.updater?, .updater(let updater)?):
            try applyUpdater(updater)
        case (.sideEffect?, .sideEffect(let sideEffect)?):
            currentHandle = startSideEffect(sideEffect)
        case (_, let replacement?):
            // Another kind: a dispatch of its own through the whole chain; the original handle follows it.
            currentHandle = DispatchHandle(storage: .pending(lock.withLock { enqueue(replacement) }))
        case (_, nil):
            throw StoreError.unsupportedDispatchable(String(reflecting: type(of: dispatchable)))
        }
    }

    /// Applies `dispatchable` if it has the type of `original`, which a plain cast to a concrete type
    /// can tell without the runtime conformance lookup of `as? any AnyStateUpdater`.
    private func applyUpdater<Original: AnyStateUpdater>(
        _ dispatchable: any Dispatchable,
        ifTypeOf original: Original
    ) throws -> Bool {
        guard let updater = dispatchable as? Original else { return false }
        try applyUpdater(updater)
        return true
    }

    /// Applies `updater` to a copy of the state, stores the copy and calls the listeners.
    private func applyUpdater(_ updater: some AnyStateUpdater) throws {
        let oldState = lock.withLock { storedState }
        var newState = oldState
        try updater.updateAnyState(&newState)
        let listeners = lock.withLock {
            storedState = newState
            return self.listeners
        }
        for listener in listeners {
            listener.callback(oldState, newState)
        }
    }

    /// Starts `sideEffect` in its own task, with a context that keeps this store alive while it runs.
    private func startSideEffect(_ sideEffect: any AnySideEffect) -> DispatchHandle<any Sendable> {
        let context = SideEffectContext(store: self)
        return DispatchHandle(
            storage: .task(
                Task(priority: configuration.sideEffectPriority) {
                    try await sideEffect.anySideEffect(context)
                }))
    }
}
