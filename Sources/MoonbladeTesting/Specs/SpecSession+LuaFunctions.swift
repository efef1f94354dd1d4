import Moonblade
import MoonbladeHost
import MoonbladeLua

// The prelude and the functions Lua calls. They run inside `lock`: whoever entered the VM holds it.

extension SpecSession {
    func installPrelude() throws(LuaError) {
        let stack = vm.stack
        try stack.load(SpecPrelude.source, chunkName: SpecPrelude.chunkName)
        stack.pushTable(fieldCount: 8)
        try stack.pushAwaitFunction()
        stack.rawSet(table: -2, field: "await")
        let functions: [(String, LuaFunction)] = [
            (
                "caller_line",
                { stack in
                    stack.push(Int64(stack.callerLocation(skipping: SpecPrelude.chunkName)?.line ?? 0))
                    return 1
                }
            ),
            ("start_dispatch", { [unowned self] stack in try startDispatch(stack) }),
            ("start_post", { [unowned self] stack in try startPost(stack) }),
            ("start_apply", { [unowned self] stack in try startApply(stack) }),
            ("read_state", { [unowned self] stack in try readState(stack) }),
            ("settle_start", { [unowned self] stack in try settleStart(stack) }),
            ("set_state", { [unowned self] stack in try setState(stack) }),
            ("add_stub", { [unowned self] stack in try addStub(stack) }),
        ]
        for (name, function) in functions {
            stack.push(function: function)
            stack.rawSet(table: -2, field: name)
        }
        try stack.call(arguments: 1, results: 1)
        runner = stack.popReference()
        // Specs build states and payloads with empty tables of a kind as plugins do.
        stack.pushGlobals()
        try stack.pushTableKindLibrary()
        stack.rawSet(table: -2, field: "moonblade")
        try installStandardDependencies(into: stack)
        stack.pop()
    }

    /// `dispatch(name, payload)`: records the store work for the case to await.
    private func startDispatch(_ stack: LuaStack) throws -> Int32 {
        // Done means done: what the item set off (an observer's save, say) has finished too, so the
        // case sees its effects and nothing outlives the case.
        try suspendCase(stack, function: "dispatch", naming: "an item name") { host, name, payload in
            try await host.dispatchAndSettle(name, payload) ?? .null
        }
    }

    /// `post(name, payload)`: posts the notification, for the case to await what its rules set off.
    private func startPost(_ stack: LuaStack) throws -> Int32 {
        try suspendCase(stack, function: "post", naming: "a notification name") { host, name, payload in
            host.post(name, payload: payload)
            await host.settle()
            return .null
        }
    }

    /// `apply_updater(state, name, payload)`: the state the Lua updater `name` leaves when run on
    /// `state` outside the store, as `moonblade replay` runs it: no interceptor, rule or listener
    /// runs, and the store's own state is untouched. A spec recorded from a journal replays each
    /// updater this way; through `dispatch` an observer's dispatch, recorded as an entry of its own,
    /// ran twice.
    private func startApply(_ stack: LuaStack) throws -> Int32 {
        let state = try stateArgument(stack, at: 3, of: "apply_updater", shownAs: "apply_updater state")
        return try suspendCase(stack, function: "apply_updater", naming: "an updater name") { host, name, payload in
            try host.applyUpdater(name, payload: payload, to: state)
        }
    }

    /// Reads `function(name, payload)`'s arguments and suspends the running case on `work`.
    private func suspendCase(
        _ stack: LuaStack, function: String, naming what: String,
        work: @escaping @Sendable (PluginHost<JSONValue>, String, JSONValue?) async throws -> JSONValue
    ) throws -> Int32 {
        guard let coroutine = CaseCoroutine.running(on: stack) else {
            try refuseInsideStub(stack, function)
            throw stack.placedError(
                "\(function) can only be called inside it, before_each or after_each, not from a coroutine the spec made",
                skipping: Self.glueChunks)
        }
        guard let name = stack.string(at: 1) else {
            throw stack.placedError("\(function) needs \(what), got \(stack.type(at: 1))", skipping: Self.glueChunks)
        }
        let payload = try stack.type(at: 2) == .nil || stack.type(at: 2) == .none ? nil : json(stack, at: 2, "\(function) payload")
        let host = try storeHost(stack)
        let settle = takeStartUp()
        let ruleFailures = ruleFailures
        coroutine.suspend {
            // What the start-up sets off failing fails the case here: its `on_start` item is the
            // first thing the case's store ran.
            let before = settle ? 0 : ruleFailures.count
            if settle { await host.settle() }
            let result = try await work(host, name, payload)
            if let failure = ruleFailures.failures(after: before).first { throw LoggedRuleFailure(message: failure) }
            return result
        }
        return 0
    }

    /// Refuses `function` (which awaits the store) from a stub: the store is waiting for its answer.
    private func refuseInsideStub(_ stack: LuaStack, _ function: String) throws {
        if let stub = insideStub {
            throw stack.placedError(
                "\(function) cannot be called from the stub \(stub): the store is waiting for its answer", skipping: Self.glueChunks)
        }
    }

    /// `state()`: a copy of the store's current state.
    private func readState(_ stack: LuaStack) throws -> Int32 {
        try encoder.push(try storeHost(stack).state, onto: stack)
        return 1
    }

    /// `settle_start()`: before the case's first look at the state, store work that waits until what
    /// the plugins' `on_start` rules set off is done (the prelude then yields for it). Returns whether
    /// there is work to await: not outside a case, where nothing can wait.
    private func settleStart(_ stack: LuaStack) throws -> Int32 {
        let host = try storeHost(stack)
        guard let coroutine = CaseCoroutine.running(on: stack), takeStartUp() else {
            stack.push(false)
            return 1
        }
        let ruleFailures = ruleFailures
        coroutine.suspend {
            await host.settle()
            if let failure = ruleFailures.failures(after: 0).first { throw LoggedRuleFailure(message: failure) }
            return .null
        }
        stack.push(true)
        return 1
    }

    /// Whether the store still has its start-up to wait for, which only the first asker waits for.
    private func takeStartUp() -> Bool {
        defer { startingUp = false }
        return startingUp
    }

    /// `set_state(table)`: the state the case's store starts from, or, once the store has started,
    /// store work that replaces the current one and settles what that sets off (the prelude then
    /// yields for it, as `dispatch` does). Returns whether there is work to await.
    private func setState(_ stack: LuaStack) throws -> Int32 {
        let state = try stateArgument(stack, at: 1, of: "set_state", shownAs: "set_state")
        guard let host else {
            initialState = state
            stack.push(false)
            return 1
        }
        guard let coroutine = CaseCoroutine.running(on: stack) else {
            try refuseInsideStub(stack, "set_state")
            throw stack.placedError(
                "set_state after the store has started can only be called inside it, before_each or after_each", skipping: Self.glueChunks)
        }
        let settle = takeStartUp()
        let ruleFailures = ruleFailures
        coroutine.suspend {
            if settle {
                await host.settle()
                if let failure = ruleFailures.failures(after: 0).first { throw LoggedRuleFailure(message: failure) }
            }
            try await host.store.dispatch(ReplaceState(state: state)).value
            // Settled with its failures reported, so none is taken for the next dispatch's.
            await host.settle()
            return .null
        }
        stack.push(true)
        return 1
    }

    /// `stub("group.name", function)`: answers `ctx.deps.group.name` with the function.
    private func addStub(_ stack: LuaStack) throws -> Int32 {
        guard let name = stack.string(at: 1), name.split(separator: ".").count == 2, stack.type(at: 2) == .function else {
            throw stack.placedError("stub needs a dependency name \"group.name\" and a function", skipping: Self.glueChunks)
        }
        if host != nil, stubs[name] == nil {
            throw stack.placedError("stub(\"\(name)\") must come before the case's first dispatch or state()", skipping: Self.glueChunks)
        }
        stack.pushCopy(of: 2)
        stubs[name] = stack.popReference()
        return 0
    }

    /// The case's store, made now if this is its first use, with every stub exposed.
    private func storeHost(_ stack: LuaStack) throws -> PluginHost<JSONValue> {
        if let host { return host }
        // The standard ones first: a stub of the same name replaces one.
        var dependencies = standard.exposed
        for name in stubs.keys {
            let parts = name.split(separator: ".").map(String.init)
            dependencies.expose(parts[0], parts[1]) { [weak self] (arguments: JSONValue) async throws -> JSONValue in
                guard let self else { throw CancellationError() }
                return try callStub(name, arguments)
            }
        }
        let made: PluginHost<JSONValue>
        do {
            made = try PluginHost<JSONValue>(
                plugins: [pluginDirectory], initialState: initialState, dependencies: dependencies,
                configuration: PluginHost.Configuration(sideEffectTimeLimit: sideEffectTimeLimit, logger: ruleFailures.logger))
        } catch {
            throw stack.placedError("the store cannot start: \(error)", skipping: Self.glueChunks)
        }
        if let failure = made.loadErrors.first {
            throw stack.placedError("\(failure)", skipping: Self.glueChunks)
        }
        host = made
        startingUp = true
        return made
    }

    /// Runs the stub `name` with `arguments`, for a plugin's side effect (outside the VM until now).
    ///
    /// An answer that is no JSON value fails as any value a spec hands the store does (`stub
    /// svc.get answered value.t: found a table that contains itself`), not as Swift's
    /// `DecodingError.dataCorrupted: Data was corrupted…`.
    private func callStub(_ name: String, _ arguments: JSONValue) throws -> JSONValue {
        try lock.withLock {
            guard let function = stubs[name] else { throw LuaError(.runtime, message: "no stub for \(name)") }
            let stack = vm.stack
            let base = stack.top
            defer { stack.top = base }
            try encoder.push(arguments, onto: stack)
            insideStub = name
            defer { insideStub = nil }
            try stack.call(arguments: 1, results: 1, function: function)
            do {
                return try decoder.decode(JSONValue.self, from: stack, at: -1)
            } catch let error as DecodingError {
                throw LuaError(.runtime, message: "stub \(name) answered \(LuaDecoder.describe(error, root: "value"))")
            }
        }
    }

    /// The state given to `function` at `index`. A state is a table of fields, and keeps its kind at
    /// the root: a plain `{}` (which reads as an empty array) is an empty one. Anything else fails at
    /// the spec's line: `set_state(5)` was taken, and the case failed later inside the plugin.
    private func stateArgument(
        _ stack: LuaStack, at index: Int32, of function: String, shownAs what: String
    ) throws -> JSONValue {
        switch try json(stack, at: index, what) {
        case .object(let fields): return .object(fields)
        case .array([]): return .object([:])
        case let other:
            let kind: String
            switch other {
            case .null: kind = "nil"
            case .array: kind = "a list"
            case .string: kind = "a string"
            case .bool: kind = "a boolean"
            default: kind = "a number"
            }
            throw stack.placedError("\(function) needs a state, a table of fields; got \(kind)", skipping: Self.glueChunks)
        }
    }

    func json(_ stack: LuaStack, at index: Int32, _ what: String) throws -> JSONValue {
        do {
            return try decoder.decode(JSONValue.self, from: stack, at: index)
        } catch let error as DecodingError {
            throw stack.placedError("\(what): \(LuaDecoder.describe(error, root: "value"))", skipping: Self.glueChunks)
        }
    }

    /// The runner's own Lua, past which an error is placed at the spec line that called into it.
    static let glueChunks: Set<String> = [SpecPrelude.chunkName, LuaStack.awaitChunkName]
}

/// Replaces a dynamic store's whole state: `set_state` after the store has started.
private struct ReplaceState: StateUpdater {
    let state: JSONValue

    func updateState(_ current: inout JSONValue) {
        current = state
    }
}
