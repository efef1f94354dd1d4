import MoonbladeLua
import Testing

/// Guest code that a limit must stop, and where.
struct GuestStop: Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    /// The line of `stop.lua` the error must name.
    let line: Int

    var testDescription: String { name }

    /// Runs `source` as `stop.lua` in a fresh sandbox of `vm`, expecting a `kind` error whose message
    /// contains `says`, at ``line``, within `bound` of wall-clock time; then checks that the stack is
    /// as it was and that the VM runs the next call normally.
    func expectStopped(
        in vm: LuaVM, kind: LuaError.Kind, says: String, within bound: Duration = .seconds(5),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let clock = ContinuousClock()
        let start = clock.now
        let base = vm.stack.top
        let error = expectLuaError(sourceLocation: sourceLocation) {
            try vm.stack.load(source, chunkName: "stop.lua")
            try vm.stack.pushSandbox()
            vm.stack.setEnvironment(ofChunkAt: -2)
            try vm.stack.call(results: 0)
        }
        let elapsed = clock.now - start
        let described = error.map(String.init(describing:)) ?? "no error"
        #expect(elapsed < bound, "took \(elapsed)", sourceLocation: sourceLocation)
        #expect(error?.kind == kind, "\(described)", sourceLocation: sourceLocation)
        #expect(error?.message.contains(says) == true, "\(described)", sourceLocation: sourceLocation)
        #expect(error?.location == LuaLocation(source: "stop.lua", line: line), "\(described)", sourceLocation: sourceLocation)
        #expect(vm.stack.top == base, "stack height changed", sourceLocation: sourceLocation)
        #expect(
            (try? vm.run("local n = 0 for i = 1, 1000 do n = n + i end return ('x'):rep(3):find('x+$')")) == [1, 3],
            "the next call fails", sourceLocation: sourceLocation)
    }
}
