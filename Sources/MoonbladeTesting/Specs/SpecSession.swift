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
    let lock = Lock()
    let vm: LuaVM
    let encoder = LuaEncoder()
    let decoder = LuaDecoder()
    var runner: LuaReference?
    let file: String
    let chunkName: String
    let pluginDirectory: String
    /// The case's store, made at its first `dispatch` or `state()`.
    var host: PluginHost<JSONValue>?
    /// Whether the store was just made and what its plugins' `on_start` rules set off may still be
    /// running: the case's first `dispatch` or `state()` waits for it, as `moonblade run` does.
    var startingUp = false
    var initialState = JSONValue()
    /// Stubbed dependencies by `group.name`.
    var stubs: [String: LuaReference] = [:]
    var caseCoroutine: LuaCoroutine?
    /// The store work the case asked for just before yielding.
    var pending: (@Sendable () async throws -> JSONValue)?

    /// Loads the spec prelude and runs the spec file, which declares its cases.
    ///
    /// - Parameter instructionBudget: the most instructions one resume of the case, or one stub call,
    ///   may run: a runaway loop then fails at its line instead of hanging the run.
    /// - Throws: the file's load error, placed at its line.
    init(file: String, chunkName: String, pluginDirectory: String, instructionBudget: Int?) throws(LuaSpecFailure) {
        self.file = file
        self.chunkName = chunkName
        self.pluginDirectory = pluginDirectory
        do {
            vm = try LuaVM(configuration: LuaVM.Configuration(memoryLimit: 256 << 20, instructionBudget: instructionBudget))
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
            throw failure(error, defaultLine: 1)
        }
    }

    /// A case as the spec file declared it: its `describe`/`it` names and the line of its `it`.
    struct DeclaredCase: Decodable, Equatable {
        var names: [String]
        var line: Int
    }

    /// The cases the file declared, in order.
    func cases() throws(LuaSpecFailure) -> [DeclaredCase] {
        do {
            return try lock.withLock {
                let stack = vm.stack
                let base = stack.top
                defer { stack.top = base }
                pushRunnerFunction("list", onto: stack)
                try stack.call(results: 1)
                return try decoder.decode([DeclaredCase].self, from: stack, at: -1)
            }
        } catch let error as LuaError {
            throw failure(error, defaultLine: 1)
        } catch {
            throw LuaSpecFailure(message: "the spec runner cannot list the cases: \(error)", file: file, line: 1)
        }
    }

    /// Runs the case at `index` (0-based) with its hooks; a failure is placed at the spec line it
    /// was raised at, or at the case's `line` when it has no place in the spec file.
    func run(caseAt index: Int, line: Int) async -> LuaSpecResult {
        var awaited: Result<JSONValue, any Error>?
        while true {
            switch lock.withLock({ resume(caseAt: index, with: awaited) }) {
            case .passed:
                return .passed
            case .failed(let message, let location):
                return .failed(failure(message, at: location, defaultLine: line))
            case .awaiting(let work):
                do {
                    awaited = .success(try await work())
                } catch {
                    awaited = .failure(error)
                }
            }
        }
    }

    /// Where a case is after running until it suspends: passed, failed (with the place the message
    /// names, if any) or waiting for store work.
    private enum Step {
        case passed
        case failed(String, LuaLocation?)
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
            pushRunnerFunction("run", onto: coroutine.stack)
            coroutine.stack.push(Int64(index + 1))
            arguments = 1
        }
        let stack = coroutine.stack
        let outcome: LuaCoroutine.Outcome
        do {
            outcome = try coroutine.resume(arguments: arguments, from: vm.stack)
        } catch {
            return .failed(error.description, error.location)
        }
        switch outcome {
        case .yielded(let count):
            stack.pop(count)
            guard let work = pending else {
                return .failed("a spec cannot yield by itself; it waits only by calling dispatch or set_state", nil)
            }
            pending = nil
            return .awaiting(work)
        case .returned(let count):
            defer { stack.pop(count) }
            let base = stack.top - count
            if count >= 1, stack.type(at: base + 1) == .boolean, (try? stack.value(at: base + 1)) == .boolean(true) {
                return .passed
            }
            let message = count >= 2 ? stack.string(at: base + 2) ?? "the case failed" : "the case failed"
            return .failed(message, LuaLocation(messagePrefix: message))
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

    /// Pushes the prelude's runner function `name` (`list` or `run`).
    private func pushRunnerFunction(_ name: String, onto stack: LuaStack) {
        runner?.push(onto: stack)
        stack.rawGet(table: -1, field: name)
        stack.remove(at: -2)
    }

    /// A failure at the spec line `error` was raised at, else at `defaultLine`.
    private func failure(_ error: LuaError, defaultLine: Int) -> LuaSpecFailure {
        failure(error.description, at: error.location, defaultLine: defaultLine)
    }

    /// A failure at `location` when it is in the spec file (the message then loses its
    /// `<chunk>:<line>: ` prefix), else at `defaultLine`.
    private func failure(_ message: String, at location: LuaLocation?, defaultLine: Int) -> LuaSpecFailure {
        guard let location, location.source == chunkName else {
            return LuaSpecFailure(message: message, file: file, line: defaultLine)
        }
        let prefix = "\(location): "
        let text = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        return LuaSpecFailure(message: text, file: file, line: location.line)
    }
}
