import CLua
import Foundation

/// A Lua function run as a coroutine that awaits Swift work by yielding (boundary rule 2).
///
/// The protocol, shared by the plugin host's side effects and the spec runner:
/// 1. Lua code calls a Swift *start* function through ``LuaStack/pushAwaitFunction()``'s `await(start, …)`.
///    The start function finds the coroutine running on its stack with ``running(on:)`` and records
///    the work with ``suspend(awaiting:)``; it never yields itself.
/// 2. `await` yields from Lua. ``resume(with:arguments:from:deadline:)`` returns ``Step/awaiting(_:)`` with the
///    work, which the caller runs outside the VM (the VM is not held while it awaits: rule 3).
/// 3. The caller resumes with the work's outcome; `await` returns the value, or raises the error
///    placed at the Lua line that awaited (past the glue chunks named at creation).
///
/// Like the VM, it is used by one thread at a time and is not `Sendable`. `Context` is what the
/// owner needs to know about a run when a start function finds it (the plugin host: the item and its
/// cascade depth).
public final class LuaAwaitingCoroutine<Value: Sendable, Context> {
    /// Swift work the coroutine waits for.
    public typealias Work = @Sendable () async throws -> Value

    /// Where the coroutine is after running until it suspends.
    public enum Step {
        /// The function returned this many values, on top of ``stack`` (pop them when read).
        case returned(Int32)
        /// It awaits `work`; resume it with the outcome.
        case awaiting(Work)
    }

    // Touched on the VM's thread alone (its one-thread rule).

    /// What its owner keeps about this run.
    public var context: Context { runContext }
    private var runContext: Context
    private let coroutine: LuaCoroutine
    /// Pushes an awaited value for Lua.
    private let pushValue: (Value, LuaStack) throws -> Void
    /// Chunks of host glue that errors are not placed in.
    private let glueChunks: Set<String>
    /// What the error says when Lua code yields without awaiting anything.
    private let strayYieldMessage: String
    private var pending: Work?
    private var hasStarted = false
    /// Whether its function has returned: the Lua thread is then fit for another function.
    private var hasReturned = false

    /// The coroutine's own stack: push the function and its arguments here before the first resume.
    public var stack: LuaStack { coroutine.stack }

    /// Creates a coroutine in the VM `stack` belongs to.
    ///
    /// - Parameters:
    ///   - stack: a stack of the VM the coroutine lives in.
    ///   - context: what the host keeps about the coroutine, found again by ``running(on:)``.
    ///   - glueChunks: chunk names of host glue (preludes) that awaited errors are placed past.
    ///   - strayYieldMessage: the error when Lua code yields by itself (a plain `coroutine.yield()`).
    ///   - pushValue: pushes an awaited value onto the coroutine's stack.
    public init(
        in stack: LuaStack, context: Context, glueChunks: Set<String>, strayYieldMessage: String,
        pushValue: @escaping (Value, LuaStack) throws -> Void
    ) {
        runContext = context
        // Hosts usually name the `await` chunk already: no new set per coroutine then.
        self.glueChunks = glueChunks.contains(LuaStack.awaitChunkName) ? glueChunks : glueChunks.union([LuaStack.awaitChunkName])
        self.strayYieldMessage = strayYieldMessage
        self.pushValue = pushValue
        coroutine = LuaCoroutine(in: stack)
    }

    /// Whether ``reuse(for:)`` may run another function on this coroutine: its function returned (a
    /// coroutine that failed, was stopped by a limit or still awaits is never reused).
    public var canBeReused: Bool { hasReturned }

    /// Readies a coroutine whose function returned to run another function on the same Lua thread,
    /// saving a new thread's allocations, with `context`. Push the function and its arguments on
    /// ``stack`` as for a new coroutine.
    ///
    /// To Lua code that kept the thread (`coroutine.running()`), it is the same thread running again.
    public func reuse(for context: Context) {
        precondition(hasReturned, "only a coroutine whose function returned can be reused")
        stack.top = 0
        runContext = context
        (hasStarted, hasReturned, pending) = (false, false, nil)
    }

    /// The awaiting coroutine running on `stack`: the one the host is resuming, if `stack` is its
    /// thread (not a coroutine the plugin made inside it) and it has this context.
    public static func running(on stack: LuaStack) -> LuaAwaitingCoroutine? {
        guard let resumed = stack.runtime.resumedCoroutine, resumed.thread == stack.threadIdentity else { return nil }
        return resumed.coroutine as? LuaAwaitingCoroutine
    }

    /// Records the work the coroutine is about to yield for; called by a Swift start function.
    public func suspend(awaiting work: @escaping Work) {
        pending = work
    }

    /// Runs the coroutine until it yields for work or returns, with the guest limits armed.
    ///
    /// - Parameters:
    ///   - outcome: nil for the first resume (the function and `arguments` are on ``stack``), else the
    ///     outcome of the awaited work.
    ///   - arguments: how many arguments the first resume passes.
    ///   - host: the stack of the thread resuming, where errors are described.
    ///   - deadline: stops the coroutine with a limit error if it is still running when it passes.
    /// - Throws: the error that ended the coroutine (placed, with a traceback), or the error for a
    ///   yield that awaited nothing.
    public func resume(
        with outcome: Result<Value, any Error>?, arguments: Int32 = 0, from host: LuaStack, deadline: LuaDeadline? = nil
    ) throws(LuaError) -> Step {
        guard hasStarted else { return try start(arguments: arguments, from: host, deadline: deadline) }
        switch outcome {
        case .success(let value): return try resume(returning: value, from: host, deadline: deadline)
        case .failure(let error): return try resume(throwing: error, from: host, deadline: deadline)
        case nil:
            pushFailure("resumed without the outcome of what it awaited", underlying: nil)
            return try run(arguments: 2, from: host, deadline: deadline)
        }
    }

    // The three below are ``resume(with:arguments:from:deadline:)`` taken apart, for hosts that know
    // which they make: code generic over `Value` looks up the metadata of `Result<Value, any Error>`
    // (and of its optional) on every call that reads one.

    /// Runs the coroutine for the first time (its function and `arguments` are on ``stack``) until
    /// it yields for work or returns; see ``resume(with:arguments:from:deadline:)``.
    public func start(arguments: Int32, from host: LuaStack, deadline: LuaDeadline? = nil) throws(LuaError) -> Step {
        precondition(!hasStarted, "the coroutine has started: resume it with the outcome of what it awaits")
        return try run(arguments: arguments, from: host, deadline: deadline)
    }

    /// Resumes the coroutine's `await` with the value its work gave.
    public func resume(returning value: Value, from host: LuaStack, deadline: LuaDeadline? = nil) throws(LuaError) -> Step {
        precondition(hasStarted, "the coroutine has not started: start it")
        stack.push(true)
        do {
            try pushValue(value, stack)
        } catch {
            stack.pop()
            pushFailure("cannot pass the result to Lua: \(error)", underlying: error)
        }
        return try run(arguments: 2, from: host, deadline: deadline)
    }

    /// Resumes the coroutine's `await` with the error its work threw, raised at the awaiting line.
    public func resume(throwing error: any Error, from host: LuaStack, deadline: LuaDeadline? = nil) throws(LuaError) -> Step {
        precondition(hasStarted, "the coroutine has not started: start it")
        pushFailure("\(error)", underlying: error)
        return try run(arguments: 2, from: host, deadline: deadline)
    }

    /// Resumes the Lua thread with the `arguments` on top of ``stack`` until it yields for work or returns.
    private func run(arguments: Int32, from host: LuaStack, deadline: LuaDeadline?) throws(LuaError) -> Step {
        hasStarted = true
        // Found by start functions while it runs; a coroutine resumed from inside it is found in turn.
        let runtime = stack.runtime
        let outer = runtime.resumedCoroutine
        runtime.resumedCoroutine = (stack.threadIdentity, self)
        defer { runtime.resumedCoroutine = outer }
        switch try coroutine.resume(arguments: arguments, from: host, deadline: deadline) {
        case .yielded(let results):
            stack.pop(results)
            guard let work = pending else {
                throw LuaError(.runtime, message: strayYieldMessage, location: stack.callerLocation())
            }
            pending = nil
            return .awaiting(work)
        case .returned(let results):
            hasReturned = true
            return .returned(results)
        }
    }

    /// The Lua line that is awaiting, past the glue: where an error about the wait belongs.
    public var awaitingLocation: LuaLocation? {
        stack.callerLocation(skipping: glueChunks)
    }

    /// Pushes `(false, "<place>: message")`, raised by `await` as it is.
    private func pushFailure(_ message: String, underlying: (any Error)?) {
        stack.push(false)
        let place = awaitingLocation.map { "\($0): " } ?? ""
        stack.pushError(message: place + message, underlying: underlying)
    }
}

/// The Lua side of awaiting: `await(start, …)` calls `start(…)`, yields, and returns the value the
/// host resumes it with, or raises the (already placed) error.
let awaitSource = String(luaResource: PackageResources.await_lua)

extension LuaStack {
    /// The chunk name of the shared `await` glue.
    public static let awaitChunkName = "moonblade/await.lua"

    /// Pushes the shared `await(start, …)` function, for preludes that build awaiting functions on it.
    public func pushAwaitFunction() throws(LuaError) {
        try load(awaitSource, chunkName: Self.awaitChunkName)
        try callAsHost(results: 1)
    }
}
