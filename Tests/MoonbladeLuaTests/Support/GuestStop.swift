import MoonbladeLua
import Testing

/// Guest code that a limit must stop, and where.
struct GuestStop: Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    /// The line of `stop.lua` the error must name.
    let line: Int

    var testDescription: String { name }

    /// What running the code did, gathered on its own thread.
    private struct Outcome: Sendable {
        var kind: LuaError.Kind?
        var message = ""
        var location: LuaLocation?
        var description = "no error"
        var elapsed = Duration.zero
        var balanced = false
        var nextCall: [LuaValue] = []
    }

    /// Runs `source` as `stop.lua` in a fresh sandbox of a VM with `configuration`, expecting a `kind`
    /// error whose message contains `says`, at ``line``, within `bound` of wall-clock time; then checks
    /// that the stack is as it was and that the VM runs the next call normally.
    ///
    /// The code runs on a thread of its own: seconds of synchronous work in slow (sanitized) builds
    /// would otherwise hold up the cooperative pool every other test awaits on.
    func expectStopped(
        with configuration: LuaVM.Configuration, kind: LuaError.Kind, says: String, within bound: Duration = .seconds(5),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let source = self.source
        let outcome = try await onOwnThread { () throws -> Outcome in
            let vm = try LuaVM(configuration: configuration)
            var outcome = Outcome()
            let clock = ContinuousClock()
            let start = clock.now
            let base = vm.stack.top
            do {
                try vm.stack.load(source, chunkName: "stop.lua")
                try vm.stack.pushSandbox()
                vm.stack.setEnvironment(ofChunkAt: -2)
                try vm.stack.call(results: 0)
            } catch let error as LuaError {
                outcome.kind = error.kind
                outcome.message = error.message
                outcome.location = error.location
                outcome.description = String(describing: error)
            }
            outcome.elapsed = clock.now - start
            outcome.balanced = vm.stack.top == base
            outcome.nextCall = try vm.run("local n = 0 for i = 1, 1000 do n = n + i end return ('x'):rep(3):find('x+$')")
            return outcome
        }
        let described = outcome.description
        #expect(outcome.elapsed < bound, "took \(outcome.elapsed)", sourceLocation: sourceLocation)
        #expect(outcome.kind == kind, "\(described)", sourceLocation: sourceLocation)
        #expect(outcome.message.contains(says), "\(described)", sourceLocation: sourceLocation)
        #expect(outcome.location == LuaLocation(source: "stop.lua", line: line), "\(described)", sourceLocation: sourceLocation)
        #expect(outcome.balanced, "stack height changed", sourceLocation: sourceLocation)
        #expect(outcome.nextCall == [1, 3], "the next call fails", sourceLocation: sourceLocation)
    }
}
