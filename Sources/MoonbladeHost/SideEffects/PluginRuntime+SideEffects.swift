import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Runs the Lua side effect `item` as its own coroutine until it returns, awaiting the Swift work
    /// it asks for with the VM released, and reads its first result with `readResult`. It fails with
    /// a limit error once ``sideEffectTimeLimit`` has passed, whether running Lua or awaiting.
    func runSideEffect<Result: Sendable>(
        _ item: String, payload: PluginValue, cascadeDepth: Int,
        readResult: @escaping @Sendable (LuaStack, Int32, LuaDecoder) throws -> Result
    ) async throws(PluginError) -> Result {
        let deadline = sideEffectTimeLimit(of: pluginName(ofItem: item)).map(LuaDeadline.init(after:))
        // Optional so that it is released inside the VM lock: its Lua references must not be dropped
        // while another thread runs Lua (rule 3; `luaL_unref` writes the registry).
        var run: UncheckedCoroutine? = try withLua { lua throws(PluginError) in
            try start(item, payload: payload, cascadeDepth: cascadeDepth, lua)
        }
        // The timer starts only once the run awaits something: most side effects never do.
        var timer: SideEffectDeadline?
        defer {
            timer?.stop()
            withLua { _ in
                run?.coroutine.finish()
                run = nil
            }
        }
        var awaited: Swift.Result<PluginValue, any Error>?
        while true {
            let step = try instruments.span("lua") { () throws(PluginError) in
                try withLua { lua throws(PluginError) in
                    try resume(run!.coroutine, with: awaited, lua, deadline: deadline, readResult: readResult)
                }
            }
            switch step {
            case .finished(let result):
                return result
            case .awaiting(let work):
                guard let deadline else {
                    awaited = await Swift.Result(awaiting: work)
                    continue
                }
                if timer == nil { timer = SideEffectDeadline(deadline) }
                do {
                    awaited = .success(try await timer!.run(work))
                } catch let passed as SideEffectDeadline.Passed {
                    throw withLua { lua in timeLimitError(passed.deadline, run: run!.coroutine, lua) }
                } catch {
                    awaited = .failure(error)
                }
            }
        }
    }

    /// Creates the run's coroutine with `(ctx, payload)` ready as the function's arguments.
    private func start(_ item: String, payload: PluginValue, cascadeDepth: Int, _ lua: LuaSide) throws(PluginError)
        -> UncheckedCoroutine
    {
        let function = try lua.code.function(of: item, isUpdater: false)
        let coroutine = SideEffectCoroutine(
            in: lua.stack, context: SideEffectRun(item: item, cascadeDepth: cascadeDepth),
            glueChunks: PluginCode.glueChunks,
            strayYieldMessage: "a side effect cannot yield by itself; it suspends only by awaiting ctx.dispatch or ctx.deps"
        ) { [encoder = lua.encoder] value, stack in try value.push(onto: stack, encoder: encoder) }
        do {
            function.push(onto: coroutine.stack)
            try lua.sideEffects.pushContext(onto: coroutine.stack)
            try payload.push(onto: coroutine.stack, encoder: lua.encoder)
        } catch {
            coroutine.finish()
            throw lua.code.valueError(error, item: item, root: "payload", on: lua.stack)
        }
        return UncheckedCoroutine(coroutine: coroutine)
    }

    /// Where a side effect is after running until it suspends.
    private enum Step<Result: Sendable>: Sendable {
        case finished(Result)
        case awaiting(PendingWork)
    }

    /// Resumes the run, handing it the outcome of what it awaited, until it yields or returns.
    private func resume<Result: Sendable>(
        _ coroutine: SideEffectCoroutine, with awaited: Swift.Result<PluginValue, any Error>?, _ lua: LuaSide,
        deadline: LuaDeadline?, readResult: (LuaStack, Int32, LuaDecoder) throws -> Result
    ) throws(PluginError) -> Step<Result> {
        let item = coroutine.context.item
        let step: SideEffectCoroutine.Step
        do {
            step = try lua.vm.withLimits(limits(of: pluginName(ofItem: item))) { () throws(LuaError) in
                try coroutine.resume(with: awaited, arguments: 2, from: lua.stack, deadline: deadline)
            }
        } catch {
            throw lua.code.pluginError(error, item: item, on: lua.stack)
        }
        switch step {
        case .awaiting(let work):
            return .awaiting(work)
        case .returned(let count):
            let stack = coroutine.stack
            if count == 0 { stack.pushNil() }
            defer { stack.pop(max(count, 1)) }
            do {
                return .finished(try readResult(stack, stack.top - max(count, 1) + 1, lua.decoder))
            } catch {
                throw lua.code.valueError(error, item: item, root: "result", on: lua.stack)
            }
        }
    }

    /// The error of a side effect whose time limit passed while it awaited Swift work, placed at the
    /// plugin line that awaited (or, past a tail call, where the side effect is defined).
    private func timeLimitError(_ deadline: LuaDeadline, run coroutine: SideEffectCoroutine, _ lua: LuaSide)
        -> PluginError
    {
        let item = coroutine.context.item
        return PluginError(
            .limit, plugin: pluginName(ofItem: item), item: item,
            message: "\(deadline.exceededMessage) while awaiting Swift work",
            location: coroutine.awaitingLocation ?? lua.code.definition(of: item, on: lua.stack))
    }
}

/// A side effect's coroutine carried across the awaits of its Swift task. It is only ever touched
/// inside ``PluginRuntime/withLua(_:)`` (rule 3), which is what makes handing it between threads safe.
private struct UncheckedCoroutine: @unchecked Sendable {
    let coroutine: SideEffectCoroutine
}

// MARK: - Entry points Lua calls (with the VM held)

extension PluginRuntime {
    /// `ctx.dispatch(name, payload)`: records the dispatch for the running side effect to await.
    func startDispatch(_ stack: LuaStack) throws -> Int32 {
        let coroutine = try Self.runningSideEffect(on: stack, doing: "ctx.dispatch")
        guard let name = stack.string(at: 1) else {
            throw placedError(stack, "ctx.dispatch needs an item name, got \(stack.type(at: 1))")
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
            throw placedError(stack, "ctx.dispatch: \(error.message)")
        }
        guard let store = withLua({ $0.store }) else {
            throw placedError(stack, "ctx.dispatch: the host has no store yet")
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

    /// `ctx.deps.<group>.<name>(arguments)`: decodes the arguments and records the call to await.
    static func startCall(_ stack: LuaStack, _ dependencies: PluginDependencies, _ instruments: HostInstruments) throws
        -> Int32
    {
        let group = stack.string(at: 1) ?? "?"
        let name = stack.string(at: 2) ?? "?"
        let coroutine = try runningSideEffect(on: stack, doing: "ctx.deps.\(group).\(name)")
        guard let function = dependencies.functions[group]?[name] else {
            throw placedError(stack, "ctx.deps.\(group).\(name) is not exposed by the host")
        }
        do {
            coroutine.suspend(awaiting: instruments.traced(try function(stack, 3, LuaDecoder()), as: "await ctx.deps.\(group).\(name)"))
        } catch let error as DecodingError {
            throw placedError(stack, "ctx.deps.\(group).\(name): \(LuaDecoder.describe(error, root: "arguments"))")
        }
        return 0
    }

    /// `ctx.state()`: pushes a read-only view of the store's current state, in O(1) when the resident
    /// state is that state (Lua code made it); else the state is pushed (see
    /// ``LuaSide/residentVersion(of:generation:)``).
    func readState(_ stack: LuaStack) throws -> Int32 {
        // Called from Lua: the VM is held already.
        try withLua { lua in
            guard let (state, generation) = lua.store?.anyStateWithGeneration, let state = state as? S else {
                throw placedError(stack, "ctx.state: the host has no store yet")
            }
            let version = try instruments.span("state to lua") { try lua.residentVersion(of: state, generation: generation) }
            try lua.resident.pushReadOnlyView(of: version, onto: stack)
        }
        return 1
    }

    /// The side effect whose own coroutine is running on `stack`; awaiting anywhere else would
    /// suspend the wrong coroutine.
    private static func runningSideEffect(on stack: LuaStack, doing what: String) throws -> SideEffectCoroutine {
        guard let coroutine = SideEffectCoroutine.running(on: stack) else {
            throw placedError(
                stack, "\(what) can only be awaited by a side effect itself (not by an updater, nor inside a coroutine it created)")
        }
        return coroutine
    }
}
