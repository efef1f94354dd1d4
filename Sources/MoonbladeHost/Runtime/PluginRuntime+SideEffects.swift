import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Where a side effect is after running until it suspends.
    private enum Step<Result: Sendable>: Sendable {
        case finished(Result)
        case awaiting(PendingWork)
    }

    /// Runs the Lua side effect `item` as its own coroutine until it returns, awaiting the Swift work
    /// it asks for with the VM released, and reads its first result with `readResult`. It fails with
    /// a limit error once ``sideEffectTimeLimit`` has passed, whether running Lua or awaiting.
    func runSideEffect<Result: Sendable>(
        _ item: String, payload: PluginValue, cascadeDepth: Int,
        readResult: @escaping @Sendable (LuaStack, Int32, LuaDecoder) throws -> Result
    ) async throws(PluginError) -> Result {
        let deadline = sideEffectTimeLimit.map(LuaDeadline.init(after:))
        let run = try withVM { vm throws(PluginError) in
            try start(item, payload: payload, cascadeDepth: cascadeDepth, vm)
        }
        defer { withVM { vm in vm.endRun(run) } }
        var awaited: Swift.Result<PluginValue, any Error>?
        while true {
            let step = try withVM { vm throws(PluginError) in
                try resume(run, with: awaited, vm, deadline: deadline, readResult: readResult)
            }
            switch step {
            case .finished(let result):
                return result
            case .awaiting(let work):
                do {
                    awaited = .success(try await DeadlineRace.run(work, before: deadline))
                } catch let passed as DeadlineRace.Passed {
                    throw withVM { vm in vm.timeLimitError(passed.deadline, run: run) }
                } catch {
                    awaited = .failure(error)
                }
            }
        }
    }

    /// Creates the run's coroutine with `(ctx, payload)` ready as the function's arguments.
    private func start(_ item: String, payload: PluginValue, cascadeDepth: Int, _ vm: PluginVM) throws(PluginError) -> Int {
        let function = try vm.function(of: item, isUpdater: false)
        let coroutine = LuaCoroutine(in: vm.vm.stack)
        do {
            function.push(onto: coroutine.stack)
            try coroutine.stack.call(results: 1, function: vm.makeContext)
            try payload.push(onto: coroutine.stack, encoder: vm.encoder)
        } catch {
            throw vm.valueError(error, item: item, root: "payload")
        }
        return vm.beginRun(SideEffectRun(item: item, coroutine: coroutine, cascadeDepth: cascadeDepth))
    }

    /// Resumes the run, handing it the outcome of what it awaited, until it yields or returns.
    private func resume<Result: Sendable>(
        _ number: Int, with awaited: Swift.Result<PluginValue, any Error>?, _ vm: PluginVM, deadline: LuaDeadline?,
        readResult: (LuaStack, Int32, LuaDecoder) throws -> Result
    ) throws(PluginError) -> Step<Result> {
        let run = vm.runs[number]!
        let stack = run.coroutine.stack
        let arguments: Int32 = 2  // first resume: (ctx, payload); later ones: (ok, result)
        switch awaited {
        case nil:
            break
        case .success(let value):
            stack.push(true)
            do {
                try value.push(onto: stack, encoder: vm.encoder)
            } catch {
                stack.pop()
                stack.push(false)
                stack.pushError(message: "cannot pass the result to Lua: \(error)", underlying: error)
            }
        case .failure(let error):
            // Raised by the prelude's `await`, at the plugin line that awaited (still on the stack).
            stack.push(false)
            let place = stack.callerLocation(skipping: Prelude.chunkName).map { "\($0): " } ?? ""
            stack.pushError(message: place + "\(error)", underlying: error)
        }
        let outcome: LuaCoroutine.Outcome
        do {
            outcome = try run.coroutine.resume(arguments: arguments, from: vm.vm.stack, deadline: deadline)
        } catch {
            throw vm.pluginError(error, item: run.item)
        }
        switch outcome {
        case .yielded(let count):
            stack.pop(count)
            guard let pending = run.pending else {
                throw vm.pluginError(
                    LuaError(
                        .runtime,
                        message: "a side effect cannot yield by itself; it suspends only by awaiting ctx.dispatch or ctx.deps",
                        location: stack.callerLocation()),
                    item: run.item)
            }
            run.pending = nil
            return .awaiting(pending)
        case .returned(let count):
            if count == 0 { stack.pushNil() }
            defer { stack.pop(max(count, 1)) }
            do {
                return .finished(try readResult(stack, stack.top - max(count, 1) + 1, vm.decoder))
            } catch {
                throw vm.valueError(error, item: run.item, root: "result")
            }
        }
    }
}

// MARK: - Entry points Lua calls (with the VM held)

extension PluginRuntime {
    /// `ctx.dispatch(name, payload, options)`: records the dispatch for the running side effect to
    /// await; `options.retries` and `options.delay` (seconds) retry it while it fails.
    func startDispatch(_ stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        let run = try vm.currentRun(stack, doing: "ctx.dispatch")
        guard let name = stack.string(at: 1) else {
            throw placedError(stack, "ctx.dispatch needs an item name, got \(stack.type(at: 1))")
        }
        let cascadeDepth = run.cascadeDepth + 1
        let item: any Dispatchable
        let retry: (retries: Int, delay: Duration)
        do throws(ItemError) {
            try checkCascade(cascadeDepth, cause: "ctx.dispatch(\(name)) from \(run.item)")
            item = try makeItem(name, payloadAt: 2, of: stack, vm)
            retry = try Self.retryOptions(at: 3, of: stack)
        } catch {
            throw placedError(stack, "ctx.dispatch: \(error.message)")
        }
        guard let store else {
            throw placedError(stack, "ctx.dispatch: the host has no store yet")
        }
        run.pending = {
            let handle = DispatchHandle.retrying(retries: retry.retries, delay: retry.delay) {
                store.anyDispatch(item, cascadeDepth: cascadeDepth)
            }
            return PluginValue(result: try await handle.value)
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
    static func startCall(_ stack: LuaStack, _ vm: PluginVM, _ dependencies: PluginDependencies) throws -> Int32 {
        let group = stack.string(at: 1) ?? "?"
        let name = stack.string(at: 2) ?? "?"
        let run = try vm.currentRun(stack, doing: "ctx.deps.\(group).\(name)")
        guard let function = dependencies.functions[group]?[name] else {
            throw placedError(stack, "ctx.deps.\(group).\(name) is not exposed by the host")
        }
        do {
            run.pending = try function(stack, 3, vm.decoder)
        } catch let error as DecodingError {
            throw placedError(stack, "ctx.deps.\(group).\(name): \(LuaDecoder.describe(error, root: "arguments"))")
        }
        return 0
    }

    /// `ctx.state()`: pushes a copy of the store's current state.
    func readState(_ stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        guard let state = store?.getAnyState() as? S else {
            throw placedError(stack, "ctx.state: the host has no store yet")
        }
        try vm.encoder.push(state, onto: stack)
        return 1
    }
}

/// An error raised at the plugin line that called into the host, past the prelude's glue. (Where a
/// tail call left no plugin line, ``PluginVM/pluginError(_:item:)`` places it later.)
func placedError(_ stack: LuaStack, _ message: String) -> LuaError {
    let location = stack.callerLocation(skipping: Prelude.chunkName)
    return LuaError(.runtime, message: location.map { "\($0): \(message)" } ?? message, location: location)
}

extension PluginVM {
    /// Registers a run under its coroutine's thread, which identifies it while it lives.
    func beginRun(_ run: SideEffectRun) -> Int {
        let number = Self.runNumber(of: run.coroutine.stack)
        runs[number] = run
        return number
    }

    func endRun(_ number: Int) {
        runs[number] = nil
    }

    private static func runNumber(of stack: LuaStack) -> Int {
        Int(bitPattern: UnsafeRawPointer(stack.state))
    }

    /// The side effect whose own coroutine is running on `stack`; awaiting anywhere else would
    /// suspend the wrong coroutine.
    func currentRun(_ stack: LuaStack, doing what: String) throws -> SideEffectRun {
        guard let run = runs[Self.runNumber(of: stack)] else {
            throw placedError(
                stack, "\(what) can only be awaited by a side effect itself (not by an updater, nor inside a coroutine it created)")
        }
        return run
    }
}
