import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeLua

/// The coroutine a spec case runs in: awaits the store's work, which yields JSON values.
typealias CaseCoroutine = LuaAwaitingCoroutine<JSONValue, Void>

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
    /// What the case's store could only log, raised at the `dispatch` or `post` that set it off.
    let ruleFailures = RuleFailureLog()
    /// The longest a side effect the case dispatches may take (the store's `sideEffectTimeLimit`).
    let sideEffectTimeLimit: Duration?
    /// The standard dependencies of the case's store: storage, clock and log, which the spec reaches too.
    let standard = SpecDependencies()
    /// Stubbed dependencies by `group.name`.
    var stubs: [String: LuaReference] = [:]
    /// The stub a plugin's side effect is calling now, if any: the store waits for its answer.
    var insideStub: String?

    /// Loads the spec prelude and runs the spec file, which declares its cases.
    ///
    /// - Parameter instructionBudget: the most instructions one resume of the case, or one stub call,
    ///   may run: a runaway loop then fails at its line instead of hanging the run.
    /// - Parameter sideEffectTimeLimit: the longest a side effect of the case's store may take in all.
    /// - Throws: the file's load error, placed at its line.
    /// - Parameter source: the spec's text, when it is not to be read from `file`.
    init(
        file: String, chunkName: String, pluginDirectory: String, instructionBudget: Int?,
        sideEffectTimeLimit: Duration?, source: String? = nil
    ) throws(LuaSpecFailure) {
        self.file = file
        self.chunkName = chunkName
        self.pluginDirectory = pluginDirectory
        self.sideEffectTimeLimit = sideEffectTimeLimit
        do {
            vm = try LuaVM(configuration: LuaVM.Configuration(memoryLimit: 256 << 20, instructionBudget: instructionBudget))
        } catch {
            throw LuaSpecFailure(message: "cannot create a Lua VM: \(error)", file: file, line: 1)
        }
        let text: String
        if let source {
            text = source
        } else {
            do throws(FileReadError) {
                let name = URL(fileURLWithPath: file).lastPathComponent
                text = try FileReader.text(at: file, shownAs: name, limit: FileReader.sourceLimit)
            } catch {
                throw LuaSpecFailure(message: error.description, file: file, line: error.line ?? 1)
            }
        }
        do {
            try lock.withLock { () throws(LuaError) in
                try installPrelude()
                try vm.run(text, chunkName: chunkName)
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
        // Optional so that it is released inside the lock: its Lua references must not be dropped
        // while a stub runs Lua on another thread (rule 3; `luaL_unref` writes the registry).
        var coroutine: CaseCoroutine? = lock.withLock { startCase(at: index) }
        defer {
            lock.withLock { coroutine = nil }
        }
        var awaited: Result<JSONValue, any Error>?
        while true {
            let step = lock.withLock { () -> Result<CaseCoroutine.Step, LuaError> in
                Result { () throws(LuaError) in try coroutine!.resume(with: awaited, arguments: 1, from: vm.stack) }
            }
            switch step {
            case .success(.awaiting(let work)):
                do {
                    awaited = .success(try await work())
                } catch {
                    awaited = .failure(error)
                }
            case .success(.returned(let count)):
                return lock.withLock { verdict(of: coroutine!, returned: count, defaultLine: line) }
            case .failure(let error):
                return .failed(failure(error.description, at: error.location, defaultLine: line))
            }
        }
    }

    /// Creates the case's coroutine, ready to run the runner's `run(index)`. Call inside `lock`.
    private func startCase(at index: Int) -> CaseCoroutine {
        let coroutine = CaseCoroutine(
            in: vm.stack, context: (), glueChunks: [SpecPrelude.chunkName],
            strayYieldMessage: "a spec cannot yield by itself; it waits only by calling dispatch or set_state"
        ) { [encoder] value, stack in try encoder.push(value, onto: stack) }
        pushRunnerFunction("run", onto: coroutine.stack)
        coroutine.stack.push(Int64(index + 1))
        return coroutine
    }

    /// What the runner's `run` returned: `"passed"`, `"pending"`, or `"failed"` and the failure
    /// message. Call inside `lock`.
    private func verdict(of coroutine: CaseCoroutine, returned count: Int32, defaultLine line: Int) -> LuaSpecResult {
        let stack = coroutine.stack
        defer { stack.pop(count) }
        let base = stack.top - count
        switch count >= 1 ? stack.string(at: base + 1) : nil {
        case "passed": return .passed
        case "pending": return .pending
        default:
            let message = count >= 2 ? stack.string(at: base + 2) ?? "the case failed" : "the case failed"
            return .failed(failure(message, at: LuaLocation(messagePrefix: message), defaultLine: line))
        }
    }

    /// What the prelude gives spec files: the globals it defines and the assertions it knows, sorted,
    /// read from a live spec VM.
    static func vocabulary() -> (globals: [String], assertions: [String]) {
        guard
            let session = try? SpecSession(
                file: "", chunkName: "vocabulary", pluginDirectory: "", instructionBudget: nil, sideEffectTimeLimit: nil, source: "")
        else { return ([], []) }
        return ((session.names("globals") + SpecSession.standardGlobals).sorted(), session.names("assertions"))
    }

    /// The list of strings the prelude's runner table holds under `field`.
    private func names(_ field: String) -> [String] {
        lock.withLock {
            let stack = vm.stack
            let base = stack.top
            defer { stack.top = base }
            pushRunnerFunction(field, onto: stack)
            return (try? decoder.decode([String].self, from: stack, at: -1)) ?? []
        }
    }

    /// Pushes the prelude's runner value `name` (`list`, `run`, `globals` or `assertions`).
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
    /// `<chunk>:<line>: ` prefix), else at `defaultLine`. A place in the prelude is dropped too: it
    /// means nothing to the spec's author (a memory limit met inside a library call is noticed there).
    /// A long message is cut as a plugin's error is (an assertion on two 10 MB values wrote 30 MB).
    private func failure(_ message: String, at location: LuaLocation?, defaultLine: Int) -> LuaSpecFailure {
        guard let location, location.source == chunkName || location.source == SpecPrelude.chunkName else {
            return LuaSpecFailure(message: LuaError.cut(message), file: file, line: defaultLine)
        }
        let prefix = "\(location): "
        let text = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        return LuaSpecFailure(message: LuaError.cut(text), file: file, line: location.source == chunkName ? location.line : defaultLine)
    }

}
