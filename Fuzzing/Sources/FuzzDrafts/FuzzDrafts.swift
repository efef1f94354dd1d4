import Foundation
import FuzzSupport
import MoonbladeHost

/// One fuzz input: a few dispatches of random programs.
func fuzzDrafts(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzBytes(start: start, count: count)
    DraftsDifferential.check(&input)
    return 0
}

/// Random programs of reads and writes run by a Lua updater on the resident state (a draft) against
/// the same program on a plain deep copy (a side effect given the state as its payload), through the
/// public `PluginHost` API only: both must end in the same `JSONValue`, shapes and reads included, and
/// a program that fails (raising half way, or leaving a state that does not decode) changes nothing.
enum DraftsDifferential {
    static let initial: JSONValue = [
        "n": 0, "list": ["a", "b"], "obj": ["k": "v", "inner": ["x": [1, 2]]], "empty_o": [:], "empty_a": [],
    ]
    static let keys: [JSONValue] = ["a", "b", "inner", "list", "n", "obj", "x", "k"]

    /// With FUZZ_VERBOSE set, each dispatch's program and outcome are printed (replaying an input).
    static let verbose = ProcessInfo.processInfo.environment["FUZZ_VERBOSE"] != nil

    /// Limits that end a runaway program (one doubling a string) long before libFuzzer's 20 s timeout for
    /// an input of eight dispatches on both sides, even on a loaded machine under AddressSanitizer; the
    /// same time limit on both sides. What a limit stopped is no verdict (`isLimit`).
    static let limits = PluginHost<JSONValue>.Configuration(
        memoryLimit: 16 << 20, instructionBudget: 10_000_000, callTimeLimit: .seconds(1), sideEffectTimeLimit: .seconds(1))

    /// One host for every input: `reset` puts the initial state back first.
    nonisolated(unsafe) static let host: PluginHost<JSONValue> = {
        let plugin = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Plugin/drafts")
        return try! PluginHost<JSONValue>(plugins: [plugin.path], initialState: initial, configuration: limits)
    }()

    static func check(_ input: inout FuzzBytes) {
        do {
            try host.dispatch("drafts.reset", initial).wait()
        } catch {
            fuzzFinding("reset failed: \(error)")
        }
        var number = 0
        while !input.isExhausted && number < 8 {
            number += 1
            let program: [JSONValue] = (0..<1 + input.choice(6)).map { _ in
                [.integer(Int64(input.choice(32))), .integer(Int64(1 + input.choice(4))), keys[input.choice(keys.count)],
                 .integer(Int64(input.choice(10)))]
            }
            let before = host.state
            let plainOutcome = Result {
                try host.dispatch("drafts.plain", PlainRun(state: before, program: program), returning: JSONValue.self).wait()
            }
            let outcome = Result { try host.dispatch("drafts.run", JSONValue.array(program)).wait() }
            let plain = try? plainOutcome.get()
            let drafted: Void? = try? outcome.get()
            if verbose {
                let result = (try? outcome.get()).map { host.state.jsonString() } ?? "\(outcome)"
                FileHandle.standardError.write(Data("\(JSONValue.array(program).jsonString()) -> \(result)\n".utf8))
            }
            // A limit (memory, instructions, time) is no verdict on the drafts: the two sides hold
            // different copies, and the time limit depends on the machine's load. A program a limit stopped must still
            // leave the state as it was.
            if isLimit(outcome) || isLimit(plainOutcome) {
                if drafted == nil, host.state != before {
                    fuzzFinding("dispatch \(number): stopped by a limit, yet changed the state (\(outcome))")
                }
                continue
            }
            guard (drafted != nil) == (plain != nil), host.state == (plain ?? before) else {
                fuzzFinding("""
                    dispatch \(number) of program \(JSONValue.array(program).jsonString())
                    from: \(before.jsonString())
                    draft: \(drafted != nil ? "ran" : "failed: \(outcome)") -> \(host.state.jsonString())
                    plain: \(plain?.jsonString() ?? "failed: \(plainOutcome)")
                    """)
            }
        }
    }
}

/// Whether `outcome` is a failure a plugin limit caused.
private func isLimit<Value>(_ outcome: Result<Value, any Error>) -> Bool {
    guard case .failure(let error) = outcome else { return false }
    return (error as? PluginError)?.kind == .limit
}

/// The side effect's payload: the state to copy and the program to run on the copy.
private struct PlainRun: Encodable, Sendable {
    var state: JSONValue
    var program: [JSONValue]
}
