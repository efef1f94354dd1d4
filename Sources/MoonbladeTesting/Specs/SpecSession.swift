import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeLua

/// One spec file loaded in its own Lua VM, and the fresh store of the case it runs.
///
/// The VM is entered by one thread at a time (boundary rule 3): by the runner while it resumes the
/// case's coroutine, and by a plugin's side effect calling a stub. Both go through `lock`, whose body
/// is synchronous, so no thread holds the VM while it awaits the store: `dispatch` yields instead.
final class SpecSession: @unchecked Sendable {
    // @unchecked Sendable: every stored var, and the VM, are touched only inside `lock`. The Swift
    // functions Lua calls run inside it already (whoever entered the VM holds it), so they never take it.
    private let lock = Lock()
    private let vm: LuaVM
    private let encoder = LuaEncoder()
    private let decoder = LuaDecoder()
    private var runner: LuaReference?
    let file: String
    let chunkName: String
    let pluginDirectory: String
    /// The case's store, made at its first `dispatch` or `state()`.
    private var host: PluginHost<JSONValue>?
    private var initialState = JSONValue()
    /// Stubbed dependencies by `group.name`.
    private var stubs: [String: LuaReference] = [:]
    private var caseCoroutine: LuaCoroutine?
    /// The store work the case asked for just before yielding.
    private var pending: (@Sendable () async throws -> JSONValue)?

    /// Loads the spec prelude and runs the spec file, which declares its cases.
    ///
    /// - Throws: the file's load error, placed at its line.
    init(file: String, chunkName: String, pluginDirectory: String) throws(LuaSpecFailure) {
        self.file = file
        self.chunkName = chunkName
        self.pluginDirectory = pluginDirectory
        do {
            vm = try LuaVM(configuration: LuaVM.Configuration(memoryLimit: 256 << 20))
        } catch {
            throw LuaSpecFailure(message: "cannot create a Lua VM: \(error)", file: file, line: 1)
        }
        guard let source = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw LuaSpecFailure(message: "cannot read the spec file", file: file, line: 1)
        }
        do {
            try lock.withLock { () throws(LuaError) in
                try installPrelude()
                try vm.run(source, chunkName: chunkName)
            }
        } catch {
            throw failure(error.description, defaultLine: 1)
        }
    }

    /// The cases the file declared: their `describe`/`it` names and lines, in order.
    func cases() throws(LuaSpecFailure) -> [(names: [String], line: Int)] {
        let listed: LuaValue
        do {
            listed = try lock.withLock { () throws(LuaError) in try call("list").first ?? .nil }
        } catch {
            throw failure(error.description, defaultLine: 1)
        }
        return (1...max(1, count(of: listed))).compactMap { position in
            let entry = listed[.integer(Int64(position))]
            guard case .integer(let line) = entry["line"] else { return nil }
            let names = (1...max(1, count(of: entry["names"]))).compactMap { index -> String? in
                if case .string(let name) = entry["names"][.integer(Int64(index))] { name } else { nil }
            }
            return (names, Int(line))
        }
    }

    /// Runs the case at `index` (0-based) with its hooks; a failure is placed at the spec line it
    /// was raised at, or at the case's `line` when it has no place in the spec file.
    func run(caseAt index: Int, line: Int) async -> LuaSpecResult {
        var awaited: Result<JSONValue, any Error>?
        while true {
            switch lock.withLock({ resume(caseAt: index, with: awaited) }) {
            case .finished(nil):
                return .passed
            case .finished(let message?):
                return .failed(failure(message, defaultLine: line))
            case .awaiting(let work):
                do {
                    awaited = .success(try await work())
                } catch {
                    awaited = .failure(error)
                }
            }
        }
    }

    /// Where a case is after running until it suspends: done (nil when it passed, else the failure
    /// message) or waiting for store work.
    private enum Step {
        case finished(String?)
        case awaiting(@Sendable () async throws -> JSONValue)
    }

    /// Starts the case on the first call, else resumes it with what it awaited. Call inside `lock`.
    private func resume(caseAt index: Int, with awaited: Result<JSONValue, any Error>?) -> Step {
        let coroutine: LuaCoroutine
        var arguments: Int32 = 2  // later resumes: (ok, result or message)
        if let running = caseCoroutine {
            coroutine = running
            pushOutcome(awaited, onto: coroutine.stack)
        } else {
            coroutine = LuaCoroutine(in: vm.stack)
            caseCoroutine = coroutine
            runner?.push(onto: coroutine.stack)
            coroutine.stack.rawGet(table: -1, field: "run")
            coroutine.stack.remove(at: -2)
            coroutine.stack.push(Int64(index + 1))
            arguments = 1
        }
        let stack = coroutine.stack
        let outcome: LuaCoroutine.Outcome
        do {
            outcome = try coroutine.resume(arguments: arguments, from: vm.stack)
        } catch {
            return .finished(error.description)
        }
        switch outcome {
        case .yielded(let count):
            stack.pop(count)
            guard let work = pending else {
                return .finished("a spec cannot yield by itself; it waits only by calling dispatch")
            }
            pending = nil
            return .awaiting(work)
        case .returned(let count):
            defer { stack.pop(count) }
            let base = stack.top - count
            if count >= 1, stack.type(at: base + 1) == .boolean, (try? stack.value(at: base + 1)) == .boolean(true) {
                return .finished(nil)
            }
            return .finished(count >= 2 ? stack.string(at: base + 2) ?? "the case failed" : "the case failed")
        }
    }

    /// Pushes `(true, result)` or `(false, message)` for the `dispatch` the case is waiting in.
    private func pushOutcome(_ awaited: Result<JSONValue, any Error>?, onto stack: LuaStack) {
        switch awaited {
        case .success(let value):
            stack.push(true)
            do {
                try encoder.push(value, onto: stack)
            } catch {
                stack.pop()
                stack.push(false)
                stack.push("cannot pass the result to the spec: \(error)")
            }
        case .failure(let error):
            stack.push(false)
            stack.push("\(error)")
        case nil:
            stack.push(false)
            stack.push("the case was resumed without a result")
        }
    }

    /// A failure at the spec line `message` starts with (`<chunk>:<line>: `), else at `defaultLine`.
    private func failure(_ message: String, defaultLine: Int) -> LuaSpecFailure {
        let prefix = "\(chunkName):"
        if message.hasPrefix(prefix) {
            let rest = message.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isNumber }
            if let line = Int(digits), rest.dropFirst(digits.count).hasPrefix(": ") {
                return LuaSpecFailure(message: String(rest.dropFirst(digits.count + 2)), file: file, line: line)
            }
        }
        return LuaSpecFailure(message: message, file: file, line: defaultLine)
    }

    private func count(of table: LuaValue) -> Int {
        guard case .table(let entries) = table else { return 0 }
        return entries.count
    }
}

// MARK: - The prelude and the functions Lua calls (inside `lock`)

extension SpecSession {
    private func installPrelude() throws(LuaError) {
        let stack = vm.stack
        try stack.load(SpecPrelude.source, chunkName: SpecPrelude.chunkName)
        stack.pushTable(fieldCount: 5)
        let functions: [(String, LuaFunction)] = [
            ("caller_line", { stack in
                stack.push(Int64(stack.callerLocation(skipping: SpecPrelude.chunkName)?.line ?? 0))
                return 1
            }),
            ("start_dispatch", { [unowned self] stack in try startDispatch(stack) }),
            ("read_state", { [unowned self] stack in try readState(stack) }),
            ("set_state", { [unowned self] stack in try setState(stack) }),
            ("add_stub", { [unowned self] stack in try addStub(stack) }),
        ]
        for (name, function) in functions {
            stack.push(function: function)
            stack.rawSet(table: -2, field: name)
        }
        try stack.call(arguments: 1, results: 1)
        runner = stack.popReference()
    }

    /// Calls the prelude's runner function `name` with no arguments.
    private func call(_ name: String) throws(LuaError) -> [LuaValue] {
        guard let runner else { return [] }
        let stack = vm.stack
        let base = stack.top
        runner.push(onto: stack)
        stack.rawGet(table: -1, field: name)
        stack.remove(at: -2)
        try stack.call(results: nil)
        return try stack.popValues(stack.top - base)
    }

    /// `dispatch(name, payload)`: records the store work for the case to await.
    private func startDispatch(_ stack: LuaStack) throws -> Int32 {
        guard let coroutine = caseCoroutine, coroutine.stack.state == stack.state else {
            throw placedError(stack, "dispatch can only be called inside it, before_each or after_each")
        }
        guard let name = stack.string(at: 1) else {
            throw placedError(stack, "dispatch needs an item name, got \(stack.type(at: 1))")
        }
        let payload = try stack.type(at: 2) == .nil || stack.type(at: 2) == .none ? nil : json(stack, at: 2, "dispatch payload")
        let host = try storeHost(stack)
        let isSideEffect = host.plugins.contains { $0.sideEffects.contains(name) }
        pending = {
            if isSideEffect {
                return try await host.dispatch(name, payload, returning: JSONValue.self).value
            }
            try await host.dispatch(name, payload).value
            return .null
        }
        return 0
    }

    /// `state()`: a copy of the store's current state.
    private func readState(_ stack: LuaStack) throws -> Int32 {
        try encoder.push(try storeHost(stack).state, onto: stack)
        return 1
    }

    /// `set_state(table)`: the state the case's store starts from, or replaces the current one.
    private func setState(_ stack: LuaStack) throws -> Int32 {
        let state = try json(stack, at: 1, "set_state")
        if let host {
            host.store.dispatch(ReplaceState(state: state))
        } else {
            initialState = state
        }
        return 0
    }

    /// `stub("group.name", function)`: answers `ctx.deps.group.name` with the function.
    private func addStub(_ stack: LuaStack) throws -> Int32 {
        guard let name = stack.string(at: 1), name.split(separator: ".").count == 2, stack.type(at: 2) == .function else {
            throw placedError(stack, "stub needs a dependency name \"group.name\" and a function")
        }
        if host != nil, stubs[name] == nil {
            throw placedError(stack, "stub(\"\(name)\") must come before the case's first dispatch or state()")
        }
        stack.pushCopy(of: 2)
        stubs[name] = stack.popReference()
        return 0
    }

    /// The case's store, made now if this is its first use, with every stub exposed.
    private func storeHost(_ stack: LuaStack) throws -> PluginHost<JSONValue> {
        if let host { return host }
        var dependencies = PluginDependencies()
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
                configuration: PluginHost.Configuration(logger: .init(label: "moonblade.spec")))
        } catch {
            throw placedError(stack, "the store cannot start: \(error)")
        }
        if let failure = made.loadErrors.first {
            throw placedError(stack, "\(failure)")
        }
        host = made
        return made
    }

    /// Runs the stub `name` with `arguments`, for a plugin's side effect (outside the VM until now).
    private func callStub(_ name: String, _ arguments: JSONValue) throws -> JSONValue {
        try lock.withLock {
            guard let function = stubs[name] else { throw LuaError(.runtime, message: "no stub for \(name)") }
            let stack = vm.stack
            let base = stack.top
            defer { stack.top = base }
            try encoder.push(arguments, onto: stack)
            try stack.call(arguments: 1, results: 1, function: function)
            return try decoder.decode(JSONValue.self, from: stack, at: -1)
        }
    }

    private func json(_ stack: LuaStack, at index: Int32, _ what: String) throws -> JSONValue {
        do {
            return try decoder.decode(JSONValue.self, from: stack, at: index)
        } catch let error as DecodingError {
            throw placedError(stack, "\(what): \(LuaDecoder.describe(error, root: "value"))")
        }
    }

    /// An error raised at the spec line that called into the runner, past the prelude.
    private func placedError(_ stack: LuaStack, _ message: String) -> LuaError {
        let location = stack.callerLocation(skipping: SpecPrelude.chunkName)
        return LuaError(.runtime, message: location.map { "\($0): \(message)" } ?? message, location: location)
    }
}

/// Replaces a dynamic store's whole state: `set_state` after the store has started.
private struct ReplaceState: StateUpdater {
    let state: JSONValue

    func updateState(_ current: inout JSONValue) {
        current = state
    }
}
