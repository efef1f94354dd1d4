import CLua
import LuaGuest

/// A Lua 5.4 virtual machine with the safe standard libraries, owned by Swift.
///
/// The VM is not thread-safe: like a `lua_State`, it must be used by one thread at a time (boundary
/// rule 3), which is why it is not `Sendable`. Hosts that share one keep it behind a lock and never
/// block while holding it.
///
/// Scripts get `string`, `table`, `math`, `utf8`, `coroutine`, the base functions minus `dofile` and
/// `loadfile` (`load` accepts text chunks only), and `os.time`/`os.clock`/`os.date`. There is no `io`,
/// `debug`, `package` or `string.dump`. Untrusted code runs in a sandbox environment
/// (``LuaStack/pushSandbox()``), where the shared libraries are read-only.
///
/// Guest code — everything run by ``LuaStack/call(arguments:results:)`` and
/// ``LuaCoroutine/resume(arguments:from:deadline:)`` — is held to the limits in ``Configuration``;
/// the host's own pushes never are.
public final class LuaVM {
    /// Settings fixed when the VM is created.
    public struct Configuration: Sendable {
        /// The most memory, in bytes, scripts may make the VM hold; nil for no limit. It applies only
        /// while Lua code runs: the host's own pushes never fail half-way because of it. Reaching it
        /// fails the whole call with a ``LuaError/Kind/memory`` error: `pcall`, `xpcall` and
        /// coroutines in Lua cannot swallow it.
        public var memoryLimit: Int?
        /// The most Lua VM instructions one call into Lua (a ``LuaStack/call(arguments:results:)``
        /// or a coroutine resume, with everything it calls) may run; nil for no limit. Counted in
        /// steps of ``hookInterval`` (so it needs the hook). Once it is exceeded the call unwinds with a
        /// ``LuaError/Kind/limit`` error that `pcall` in Lua cannot swallow. Library functions that
        /// loop in C count their work as instructions: each step of `string.find`/`match`/`gmatch`/
        /// `gsub`'s pattern matcher, each element `table.move` moves.
        public var instructionBudget: Int?
        /// The longest one call into Lua (a ``LuaStack/call(arguments:results:)`` or a coroutine
        /// resume, with everything it calls) may run on the wall clock, unless the resume is given a
        /// deadline of its own; nil for no limit. Checked where the budget is (the count hook, the
        /// pattern matcher), so it needs the hook for Lua loops. When it passes, the call unwinds
        /// with a ``LuaError/Kind/limit`` error that `pcall` in Lua cannot swallow.
        public var callTimeLimit: Duration?
        /// How many instructions run between two checks of the instruction budget and the deadline
        /// by the count hook; nil for no hook, which also means no budget and no deadlines.
        ///
        /// While a count hook is installed, Lua 5.4 traps every instruction to count it: a tight
        /// arithmetic loop runs about 2.2 times slower whatever the interval (BENCHMARKS.md has
        /// the figures); code that mostly calls library functions or crosses to Swift barely notices.
        public var hookInterval: Int?

        /// Settings with the given limits; nil means no limit, and a nil `hookInterval` no count hook.
        public init(
            memoryLimit: Int? = nil, instructionBudget: Int? = nil, callTimeLimit: Duration? = nil,
            hookInterval: Int? = 1000
        ) {
            self.memoryLimit = memoryLimit
            self.instructionBudget = instructionBudget
            self.callTimeLimit = callTimeLimit
            self.hookInterval = hookInterval
        }
    }

    let runtime: LuaRuntime

    /// The main thread's stack.
    public let stack: LuaStack

    /// Creates a VM and opens the safe standard libraries.
    public init(configuration: Configuration = Configuration()) throws(LuaError) {
        precondition(configuration.hookInterval.map { $0 > 0 } ?? true, "hookInterval must be positive")
        runtime = LuaRuntime(configuration: configuration)
        guard let state = moonblade_newstate(runtime.limits) else {
            throw LuaError(.memory, message: "cannot create a Lua state")
        }
        runtime.state = state
        runtime.attach(to: state)
        stack = LuaStack(state)
        let status = moonblade_open_libraries(state)
        guard status == LUA_OK else { throw stack.popError(status: status) }
        if configuration.hookInterval != nil {
            moonblade_install_count_hook(state, runtime.limits.pointee.hook_interval)
        }
    }

    deinit {
        let state = runtime.state
        runtime.state = nil  // references released while closing must not touch the closing state
        lua_close(state)
        moonblade_drain_block_pool(runtime.limits)  // nothing allocates after the close
    }

    /// Bytes the VM holds right now.
    public var memoryInUse: Int { runtime.limits.pointee.memory_used }

    /// The memory limit in bytes, nil for none; may be changed between calls.
    public var memoryLimit: Int? {
        get { runtime.limits.pointee.memory_limit == 0 ? nil : runtime.limits.pointee.memory_limit }
        set { runtime.limits.pointee.memory_limit = newValue ?? 0 }
    }
}

// MARK: - Conveniences built on the stack

extension LuaVM {
    /// Compiles and runs `source`, returning what the chunk returns.
    @discardableResult
    public func run(_ source: String, chunkName: String = "chunk") throws(LuaError) -> [LuaValue] {
        let base = stack.top
        try stack.load(source, chunkName: chunkName)
        try stack.call(results: nil)
        return try stack.popValues(stack.top - base)
    }

    /// Compiles `source` without running it and returns the resulting function.
    public func load(_ source: String, chunkName: String) throws(LuaError) -> LuaReference {
        try stack.load(source, chunkName: chunkName)
        return stack.popReference()
    }

    /// Calls a referenced function with `arguments`, returning all its results.
    @discardableResult
    public func call(_ function: LuaReference, _ arguments: [LuaValue] = []) throws(LuaError) -> [LuaValue] {
        let base = stack.top
        try stack.reserve(Int32(clamping: arguments.count))
        for argument in arguments {
            do { try stack.push(argument) } catch { stack.top = base; throw error }
        }
        try stack.call(arguments: Int32(arguments.count), results: nil, function: function)
        return try stack.popValues(stack.top - base)
    }

    /// The global `name`, read raw.
    public func global(_ name: String) throws(LuaError) -> LuaValue {
        stack.pushGlobals()
        stack.rawGet(table: -1, field: name)
        defer { stack.pop(2) }
        return try stack.value(at: -1)
    }

    /// Sets the global `name`, raw.
    public func setGlobal(_ name: String, to value: LuaValue) throws(LuaError) {
        stack.pushGlobals()
        defer { stack.pop() }
        try stack.push(value)
        stack.rawSet(table: -2, field: name)
    }

    /// Makes `body` callable from Lua as the global function `name`.
    public func register(_ name: String, _ body: @escaping LuaFunction) {
        stack.pushGlobals()
        stack.push(function: body)
        stack.rawSet(table: -2, field: name)
        stack.pop()
    }

    /// Makes `body` callable from Lua as the global function `name`, with arguments and results as
    /// plain values. Convenient where speed does not matter; hot paths use ``register(_:_:)``.
    public func registerWithValues(_ name: String, _ body: @escaping ([LuaValue]) throws -> [LuaValue]) {
        register(name) { stack in
            let results = try body(try stack.popValues(stack.top))
            try stack.reserve(Int32(clamping: results.count))
            for result in results { try stack.push(result) }
            return Int32(results.count)
        }
    }
}
