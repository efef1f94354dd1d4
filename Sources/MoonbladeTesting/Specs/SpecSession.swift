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
    var initialState = JSONValue()
    /// Stubbed dependencies by `group.name`.
    var stubs: [String: LuaReference] = [:]
    var caseCoroutine: LuaCoroutine?
    /// The store work the case asked for just before yielding.
    var pending: (@Sendable () async throws -> JSONValue)?

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
        return elements(of: listed).compactMap { entry in
            guard case .integer(let line) = entry["line"] else { return nil }
            let names = elements(of: entry["names"]).compactMap { name -> String? in
                if case .string(let name) = name { name } else { nil }
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

    /// The elements `1…n` of a Lua sequence.
    private func elements(of sequence: LuaValue) -> [LuaValue] {
        var elements: [LuaValue] = []
        while case let element = sequence[.integer(Int64(elements.count + 1))], element != .nil {
            elements.append(element)
        }
        return elements
    }
}
