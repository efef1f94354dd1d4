import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Where a side effect is after running until it suspends.
    private enum Step<Result: Sendable>: Sendable {
        case finished(Result)
        case awaiting(PendingAwait)
    }

    /// Runs the Lua side effect `item` as its own coroutine until it returns, awaiting the Swift work
    /// it asks for with the VM released, and reads its first result with `readResult`.
    func runSideEffect<Result: Sendable>(
        _ item: String, payload: PluginValue,
        readResult: @escaping @Sendable (LuaStack, Int32, LuaDecoder) throws -> Result
    ) async throws(PluginError) -> Result {
        let run = try withVM { vm throws(PluginError) in try start(item, payload: payload, vm) }
        defer { withVM { vm in vm.endRun(run) } }
        var awaited: Swift.Result<PluginValue, AwaitFailure>?
        while true {
            let step = try withVM { vm throws(PluginError) in
                try resume(run, with: awaited, vm, readResult: readResult)
            }
            switch step {
            case .finished(let result):
                return result
            case .awaiting(let pending):
                do {
                    awaited = .success(try await pending.work())
                } catch {
                    awaited = .failure(AwaitFailure(location: pending.location, error: error))
                }
            }
        }
    }

    /// Creates the run's coroutine with `(ctx, payload)` ready as the function's arguments.
    private func start(_ item: String, payload: PluginValue, _ vm: PluginVM) throws(PluginError) -> Int {
        guard let function = vm.functions[item] else { throw Self.unknown(item) }
        let coroutine = LuaCoroutine(in: vm.vm.stack)
        do {
            function.push(onto: coroutine.stack)
            try coroutine.stack.call(results: 1, function: vm.makeContext)
            try payload.push(onto: coroutine.stack, encoder: vm.encoder)
        } catch {
            throw PluginError(
                .invalidValue, plugin: pluginName(ofItem: item), item: item, message: "payload: \(error)",
                underlying: error)
        }
        let definition = coroutine.stack.definitionLocation(ofFunctionAt: 1)
        return vm.beginRun(SideEffectRun(item: item, coroutine: coroutine, definition: definition))
    }

    /// Resumes the run, handing it the outcome of what it awaited, until it yields or returns.
    private func resume<Result: Sendable>(
        _ number: Int, with awaited: Swift.Result<PluginValue, AwaitFailure>?, _ vm: PluginVM,
        readResult: (LuaStack, Int32, LuaDecoder) throws -> Result
    ) throws(PluginError) -> Step<Result> {
        let run = vm.runs[number]!
        let stack = run.coroutine.stack
        let plugin = pluginName(ofItem: run.item)
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
        case .failure(let failure):
            stack.push(false)
            stack.pushError(message: failure.message, underlying: failure.error)
        }
        let outcome: LuaCoroutine.Outcome
        do {
            outcome = try run.coroutine.resume(arguments: arguments, from: vm.vm.stack)
        } catch {
            var failure = PluginError(error, plugin: plugin, item: run.item)
            if failure.location == nil || failure.location?.source == Prelude.chunkName {
                failure.location = run.definition
            }
            throw failure
        }
        switch outcome {
        case .yielded(let count):
            stack.pop(count)
            guard let pending = run.pending else {
                throw PluginError(
                    .runtime, plugin: plugin, item: run.item,
                    message: "a side effect cannot yield by itself; it suspends only by awaiting ctx.dispatch or ctx.deps",
                    location: run.pluginLocation(stack))
            }
            run.pending = nil
            return .awaiting(pending)
        case .returned(let count):
            if count == 0 { stack.pushNil() }
            defer { stack.pop(max(count, 1)) }
            do {
                return .finished(try readResult(stack, stack.top - max(count, 1) + 1, vm.decoder))
            } catch let error as DecodingError {
                throw PluginError(
                    .invalidValue, plugin: plugin, item: run.item,
                    message: "returned \(LuaDecoder.describe(error, root: "result"))", underlying: error)
            } catch {
                throw PluginError(.invalidValue, plugin: plugin, item: run.item, message: "result: \(error)", underlying: error)
            }
        }
    }
}

/// Swift work a side effect awaited that failed, and the plugin line that awaited it.
struct AwaitFailure: Error {
    let location: LuaLocation?
    let error: any Error

    /// What the side effect sees raised at the line that awaited.
    var message: String {
        location.map { "\($0): \(error)" } ?? "\(error)"
    }
}

// MARK: - Entry points Lua calls (with the VM held)

extension PluginRuntime {
    /// `ctx.dispatch(name, payload)`: records the dispatch for the running side effect to await.
    func startDispatch(_ stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        let run = try vm.currentRun(stack, doing: "ctx.dispatch")
        guard let name = stack.string(at: 1) else {
            throw placedError(stack, "ctx.dispatch needs an item name, got \(stack.type(at: 1))", run: run)
        }
        guard let kind = kind(of: name) else {
            throw placedError(stack, "ctx.dispatch: no item named \(name) is registered", run: run)
        }
        let payload: PluginValue
        do {
            payload = stack.type(at: 2) == .nil || stack.type(at: 2) == .none ? .none : .lua(try stack.value(at: 2))
        } catch {
            throw placedError(stack, "ctx.dispatch(\(name)) payload: \(error.message)", run: run)
        }
        let item: any Dispatchable
        switch kind {
        case .luaUpdater:
            item = LuaItemUpdater(runtime: self, item: name, payload: payload)
        case .luaSideEffect:
            item = LuaItemSideEffect<S, LuaValue>(runtime: self, item: name, payload: payload)
        case .swift(let make):
            do {
                item = try make(stack, 2, vm.decoder)
            } catch let error as DecodingError {
                throw placedError(stack, "ctx.dispatch(\(name)): \(LuaDecoder.describe(error, root: "payload"))", run: run)
            }
        }
        guard let dispatch = store?.dispatch else {
            throw placedError(stack, "ctx.dispatch: the host has no store yet", run: run)
        }
        run.pending = PendingAwait(location: run.pluginLocation(stack)) {
            PluginValue(result: try await dispatch(item).value)
        }
        return 0
    }

    /// `ctx.deps.<group>.<name>(arguments)`: decodes the arguments and records the call to await.
    static func startCall(_ stack: LuaStack, _ vm: PluginVM, _ dependencies: PluginDependencies) throws -> Int32 {
        let group = stack.string(at: 1) ?? "?"
        let name = stack.string(at: 2) ?? "?"
        let run = try vm.currentRun(stack, doing: "ctx.deps.\(group).\(name)")
        guard let function = dependencies.functions[group]?[name] else {
            throw placedError(stack, "ctx.deps.\(group).\(name) is not exposed by the host", run: run)
        }
        do {
            run.pending = PendingAwait(
                location: run.pluginLocation(stack), work: try function(stack, 3, vm.decoder))
        } catch let error as DecodingError {
            throw placedError(stack, "ctx.deps.\(group).\(name): \(LuaDecoder.describe(error, root: "arguments"))", run: run)
        }
        return 0
    }

    /// `ctx.state()`: pushes a copy of the store's current state.
    func readState(_ stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        guard let getState = store?.getState, let state = getState() as? S else {
            throw placedError(stack, "ctx.state: the host has no store yet")
        }
        try vm.encoder.push(state, onto: stack)
        return 1
    }
}

/// An error raised at the plugin line that called into the host (past the prelude's glue), or else
/// where the running side effect is defined.
func placedError(_ stack: LuaStack, _ message: String, run: SideEffectRun? = nil) -> LuaError {
    let location = run?.pluginLocation(stack) ?? stack.callerLocation(skipping: Prelude.chunkName)
    return LuaError(.runtime, message: location.map { "\($0): \(message)" } ?? message, location: location)
}

extension PluginVM {
    func beginRun(_ run: SideEffectRun) -> Int {
        nextRunNumber += 1
        runs[nextRunNumber] = run
        runByThread[run.coroutine.stack.state] = nextRunNumber
        return nextRunNumber
    }

    func endRun(_ number: Int) {
        guard let run = runs.removeValue(forKey: number) else { return }
        runByThread[run.coroutine.stack.state] = nil
    }

    /// The side effect whose own coroutine is running on `stack`; awaiting anywhere else would
    /// suspend the wrong coroutine.
    func currentRun(_ stack: LuaStack, doing what: String) throws -> SideEffectRun {
        guard let number = runByThread[stack.state], let run = runs[number] else {
            throw placedError(
                stack, "\(what) can only be awaited by a side effect itself (not by an updater, nor inside a coroutine it created)")
        }
        return run
    }
}
