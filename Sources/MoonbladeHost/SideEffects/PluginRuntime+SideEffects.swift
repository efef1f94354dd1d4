import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Runs the Lua side effect `item` as its own coroutine until it returns, awaiting the Swift work
    /// it asks for with the VM released, and reads its first result with `readResult`. It fails with
    /// a limit error once ``sideEffectTimeLimit`` has passed, whether running Lua or awaiting.
    ///
    /// The result is type-erased on its way (the store erases it anyway): code generic over the
    /// result's type would look up the metadata of its optional at every step.
    ///
    /// Inlined: an `async` frame of its own would cost the side effect's task a slab allocation.
    @inline(__always)
    func runSideEffect(
        _ item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue, cascadeDepth: Int,
        readResult: SideEffectResultReader, ending: SideEffectEnding?
    ) async throws(PluginError) -> any Sendable {
        var result: (any Sendable)?
        guard
            let awaiting = try startSideEffect(
                item, resolved: resolved, payload: payload, cascadeDepth: cascadeDepth, readResult: readResult, into: &result)
        else { return result! }
        return try await finishSideEffect(awaiting, readResult: readResult, ending: ending)
    }

    /// Runs the side effect up to its first await of Swift work, in one hold of the VM and without
    /// an `async` frame (most side effects never await: they cost no task allocation then). Returns
    /// the run awaiting, or nil once it has returned with its first result read into `result`.
    func startSideEffect(
        _ item: String, resolved: ResolvedLuaItem?, payload: PluginValue, cascadeDepth: Int,
        readResult: SideEffectResultReader, into result: inout (any Sendable)?
    ) throws(PluginError) -> AwaitingSideEffect? {
        let run = SideEffectRun(item: item, plugin: resolved?.plugin ?? pluginName(ofItem: item), cascadeDepth: cascadeDepth)
        let deadline = sideEffectTimeLimit(of: run.plugin).map(LuaDeadline.init(after:))
        return try instruments.span("lua") { () throws(PluginError) in
            try withLua { lua throws(PluginError) in
                let coroutine = try start(run, resolved: resolved, payload: payload, lua)
                guard let work = try step(coroutine, with: nil, lua, deadline: deadline, readResult: readResult, into: &result)
                else { return nil }
                return AwaitingSideEffect(coroutine, awaiting: work, deadline: deadline)
            }
        }
    }

    /// Goes on with a run that awaits Swift work until it returns, raced against its deadline (one for
    /// the whole run) when it has a time limit: in this task when the run's dispatch has its `ending`
    /// (the deadline ends that) or there is no deadline, else in a task of its own.
    ///
    /// The run's loop is inlined here, once: a frame of its own (~800 bytes) would take the side
    /// effect's task allocator past another slab, a malloc per run.
    func finishSideEffect(
        _ awaiting: AwaitingSideEffect, readResult: SideEffectResultReader, ending: SideEffectEnding?
    ) async throws(PluginError) -> any Sendable {
        if awaiting.deadline != nil {
            guard let ending else { return try await finishInTaskOfItsOwn(awaiting, readResult: readResult) }
            awaiting.endsOnDeadline(ending, self)
        }
        defer { awaiting.finish() }
        return try await goOn(awaiting, readResult: readResult)
    }

    /// ``finishSideEffect(_:readResult:ending:)`` for a run whose dispatch has no ending of its own:
    /// the run goes on in a task of its own, raced against the deadline.
    private func finishInTaskOfItsOwn(
        _ awaiting: AwaitingSideEffect, readResult: SideEffectResultReader
    ) async throws(PluginError) -> any Sendable {
        // Started on this thread, so that awaits whose work answers at once end the run before it returns.
        let worker = Task.immediate {
            do throws(PluginError) {
                awaiting.tell(.success(try await self.goOn(awaiting, readResult: readResult)))
            } catch {
                awaiting.tell(.failure(error))
            }
        }
        do {
            return try await awaiting.outcome(of: worker)
        } catch let error as PluginError {
            throw error
        } catch {
            // `Passed`: the run was abandoned while it awaited, so its coroutine is this task's now.
            throw endPastTimeLimit(awaiting, awaiting.deadline!)
        }
    }

    /// How many awaits a run makes between two yields of its thread. An await whose work answers at
    /// once does not suspend, so a run polling such work (a clock, a cache) would otherwise keep a
    /// thread of the shared pool until it ends, up to its time limit, and starve the host's other tasks.
    static var awaitsBetweenYields: Int { 64 }

    /// Goes on with a run that awaits Swift work: awaits it with the VM released, resumes the
    /// coroutine with the outcome, and so on until it returns, yielding its thread every
    /// ``awaitsBetweenYields`` awaits. Under a deadline, the run stops as soon as it finds itself
    /// abandoned.
    @inline(__always)
    private func goOn(_ run: AwaitingSideEffect, readResult: SideEffectResultReader) async throws(PluginError) -> any Sendable {
        let deadline = run.deadline
        var work = run.firstWork
        var awaits = 0
        while true {
            awaits += 1
            if awaits % Self.awaitsBetweenYields == 0 {
                await Task.yield()
            }
            if let deadline, !run.beginAwait() {
                throw endPastTimeLimit(run, deadline)
            }
            // Awaited here rather than through a helper: each `async` frame is a task allocation.
            let awaited: Swift.Result<PluginValue, any Error>
            do {
                awaited = .success(try await work())
            } catch {
                awaited = .failure(error)
            }
            if let deadline, !run.endAwait() {
                // Abandoned: the coroutine is no longer this task's to resume. The error is the one the
                // dispatch ended with, or ends with now (work that held its thread past the deadline).
                throw endPastTimeLimit(run, deadline)
            }
            var result: (any Sendable)?
            guard let next = try resume(run, with: awaited, deadline: deadline, readResult: readResult, into: &result)
            else { return result! }
            work = next
        }
    }

    /// Resumes a run with the outcome of what it awaited, until it awaits again (returned) or returns
    /// (nil, its first result read into `result`). Not `async`, so that its locals stay out of the
    /// task's frames.
    private func resume(
        _ run: AwaitingSideEffect, with awaited: Swift.Result<PluginValue, any Error>, deadline: LuaDeadline?,
        readResult: SideEffectResultReader, into result: inout (any Sendable)?
    ) throws(PluginError) -> PendingWork? {
        try instruments.span("lua") { () throws(PluginError) in
            try withLua { lua throws(PluginError) in
                // `step` keeps a coroutine that returned for reuse: only this run's reference goes.
                do throws(PluginError) {
                    let next = try step(run.coroutine!, with: awaited, lua, deadline: deadline, readResult: readResult, into: &result)
                    if next == nil { run.release() }
                    return next
                } catch {
                    run.release()
                    throw error
                }
            }
        }
    }

    /// Creates the run's coroutine with `(ctx, payload)` ready as the function's arguments; the function
    /// taken from `resolved`'s slot unless a reload has installed other code since.
    private func start(
        _ run: SideEffectRun, resolved: ResolvedLuaItem?, payload: PluginValue, _ lua: LuaSide
    ) throws(PluginError) -> SideEffectCoroutine {
        let function = try lua.code.function(of: run.item, resolved: resolved, isUpdater: false).function
        let coroutine =
            lua.idleSideEffects.take(for: run)
            ?? SideEffectCoroutine(
                in: lua.stack, context: run, glueChunks: PluginCode.glueChunks,
                strayYieldMessage: "a side effect cannot yield by itself; it suspends only by awaiting ctx.dispatch or ctx.deps",
                pushValue: lua.pushAwaited)
        do {
            function.push(onto: coroutine.stack)
            lua.sideEffects.pushContext(onto: coroutine.stack)
            try payload.push(onto: coroutine.stack, encoder: lua.encoder)
        } catch {
            throw lua.code.valueError(error, item: run.item, root: "payload", on: lua.stack)
        }
        return coroutine
    }

    /// Resumes the run, handing it the outcome of what it awaited, until it yields or returns: returns
    /// the work it awaits, or nil once it has returned and its first result is read into `result`.
    /// The coroutine is kept for reuse when it returns.
    private func step(
        _ coroutine: SideEffectCoroutine, with awaited: Swift.Result<PluginValue, any Error>?, _ lua: LuaSide,
        deadline: LuaDeadline?, readResult: SideEffectResultReader, into result: inout (any Sendable)?
    ) throws(PluginError) -> PendingWork? {
        let run = coroutine.context
        let step: SideEffectCoroutine.Step
        do {
            step = try lua.vm.withLimits(limits(of: run.plugin)) { () throws(LuaError) in
                switch awaited {
                case nil: try coroutine.start(arguments: 2, from: lua.stack, deadline: deadline)
                case .success(let value): try coroutine.resume(returning: value, from: lua.stack, deadline: deadline)
                case .failure(let error): try coroutine.resume(throwing: error, from: lua.stack, deadline: deadline)
                }
            }
        } catch {
            throw lua.code.pluginError(error, item: run.item, plugin: run.plugin, on: lua.stack)
        }
        switch step {
        case .awaiting(let work):
            return work
        case .returned(let count):
            defer { lua.idleSideEffects.finish(coroutine, of: run) }
            let stack = coroutine.stack
            if count == 0 { stack.pushNil() }
            defer { stack.pop(max(count, 1)) }
            do {
                result = try readResult.read(stack, at: stack.top - max(count, 1) + 1, with: lua.decoder)
                return nil
            } catch {
                throw lua.code.valueError(error, item: run.item, root: "result", on: lua.stack)
            }
        }
    }

    /// Ends `run`, whose time limit passed while it awaited Swift work (its coroutine is the caller's
    /// to end), and returns the error it fails with, placed at the plugin line that awaited (or, past
    /// a tail call, where the side effect is defined); the same error when asked again.
    private func endPastTimeLimit(_ run: AwaitingSideEffect, _ deadline: LuaDeadline) -> PluginError {
        withLua { lua in
            if let said = run.pastLimitError { return said }
            defer { run.release() }
            let coroutine = run.coroutine!
            let error = PluginError(
                .limit, plugin: run.context.plugin, item: run.context.item,
                message: "\(deadline.exceededMessage) while awaiting Swift work",
                location: coroutine.awaitingLocation ?? lua.code.definition(of: run.context.item, on: lua.stack))
            run.pastLimitError = error
            return error
        }
    }
}

extension PluginRuntime: SideEffectRunner {
    func endPastTimeLimit(_ run: AwaitingSideEffect) -> PluginError {
        endPastTimeLimit(run, run.deadline!)
    }
}

// MARK: - Entry points Lua calls (with the VM held)

extension PluginRuntime {
    /// `ctx.dispatch(name, payload)`: records the dispatch for the running side effect to await.
    func startDispatch(_ stack: LuaStack) throws -> Int32 {
        let coroutine = try Self.runningSideEffect(on: stack, doing: "ctx.dispatch")
        guard let name = stack.string(at: 1) else {
            throw stack.placedError("ctx.dispatch needs an item name, got \(stack.type(at: 1))", skipping: PluginCode.glueChunks)
        }
        let run = coroutine.context
        let cascadeDepth = run.cascadeDepth + 1
        let item: any Dispatchable
        let retry: (retries: Int, delay: Duration)
        do throws(ItemError) {
            try checkCascade(cascadeDepth, cause: "ctx.dispatch(\(name)) from \(run.item)")
            item = try makeItem(name, payloadAt: 2, of: stack)
            retry = try Self.retryOptions(at: 3, of: stack)
        } catch {
            throw stack.placedError("ctx.dispatch: \(error.message)", skipping: PluginCode.glueChunks, underlying: error)
        }
        guard let store = withLua({ $0.store }) else {
            throw stack.placedError("ctx.dispatch: the host has no store yet", skipping: PluginCode.glueChunks)
        }
        coroutine.suspend { [instruments] in
            try await instruments.span("await ctx.dispatch \(name)") {
                let handle = DispatchHandle.retrying(retries: retry.retries, delay: retry.delay) {
                    store.anyDispatch(instruments.adopting(item), cascadeDepth: cascadeDepth)
                }
                return PluginValue(result: try await handle.value)
            }
        }
        return 0
    }

    /// Reads `{ retries = n, delay = seconds }` (both optional) at `index`; nil means no retry.
    private static func retryOptions(at index: Int32, of stack: LuaStack) throws(ItemError) -> (retries: Int, delay: Duration) {
        switch stack.type(at: index) {
        case .nil, .none: return (0, .zero)
        case .table: break
        case let other: throw ItemError(message: "the options must be a table, got a \(other)")
        }
        let (retries, retriesFound) = option("retries", at: index, of: stack) { stack.integer(at: -1).map(Int.init) }
        guard let retries, retries >= 0 else {
            throw ItemError(message: "options.retries must be a non-negative integer, found \(retriesFound)")
        }
        let (seconds, delayFound) = option("delay", at: index, of: stack) { stack.number(at: -1) }
        guard let seconds, seconds >= 0, seconds.isFinite else {
            throw ItemError(message: "options.delay must be a non-negative number of seconds, found \(delayFound)")
        }
        return (retries, .seconds(seconds))
    }

    /// The field `name` of the table at `index` read with `read` (0 when absent), and how it looks.
    private static func option<Value: Numeric>(
        _ name: String, at index: Int32, of stack: LuaStack, read: () -> Value?
    ) -> (Value?, String) {
        defer { stack.pop() }
        guard stack.rawGet(table: index, field: name) != .nil else { return (0, "nil") }
        return (read(), stack.describe(at: -1))
    }

    /// `ctx.deps.<group>.<name>(arguments)`, called by the prelude as `(number, arguments)` with the
    /// function's number in `entries`: decodes the arguments and records the call to await.
    static func startCall(_ stack: LuaStack, _ entries: [PluginDependencies.Entry], _ instruments: HostInstruments) throws
        -> Int32
    {
        // The prelude passes the numbers it was given: anything else is a broken prelude, not a plugin's doing.
        guard let number = stack.integer(at: 1).map(Int.init), entries.indices.contains(number - 1) else {
            throw stack.placedError("ctx.deps: no exposed function has number \(stack.describe(at: 1))", skipping: PluginCode.glueChunks)
        }
        let entry = entries[number - 1]
        let coroutine = try runningSideEffect(on: stack, doing: "ctx.deps.\(entry.group).\(entry.name)")
        do {
            coroutine.suspend(
                awaiting: instruments.traced(
                    try entry.function(stack, 2, LuaDecoder()), as: "await ctx.deps.\(entry.group).\(entry.name)"))
        } catch let error as DecodingError {
            throw stack.placedError(
                "ctx.deps.\(entry.group).\(entry.name): \(LuaDecoder.describe(error, root: "arguments"))", skipping: PluginCode.glueChunks)
        }
        return 0
    }

    /// `ctx.state()`: pushes a read-only view of the store's current state, in O(1) when the resident
    /// state is that state (Lua code made it); else the state is pushed (see
    /// ``LuaSide/residentVersion(of:stateVersion:)``).
    func readState(_ stack: LuaStack) throws -> Int32 {
        // Called from Lua: the VM is held already.
        try withLua { lua in
            guard let (state, stateVersion) = lua.store?.anyStateWithVersion, let state = state as? S else {
                throw stack.placedError("ctx.state: the host has no store yet", skipping: PluginCode.glueChunks)
            }
            let version = try instruments.span("state to lua") { try lua.residentVersion(of: state, stateVersion: stateVersion) }
            try lua.resident.pushReadOnlyView(of: version, onto: stack)
        }
        return 1
    }

    /// The side effect whose own coroutine is running on `stack`; awaiting anywhere else would
    /// suspend the wrong coroutine.
    private static func runningSideEffect(on stack: LuaStack, doing what: @autoclosure () -> String) throws
        -> SideEffectCoroutine
    {
        guard let coroutine = SideEffectCoroutine.running(on: stack) else {
            throw stack.placedError(
                "\(what()) can only be awaited by a side effect itself (not by an updater, nor inside a coroutine it created)",
                skipping: PluginCode.glueChunks)
        }
        return coroutine
    }
}
