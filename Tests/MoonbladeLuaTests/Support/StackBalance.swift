import MoonbladeLua
import Testing

/// Runs `body` and records an issue if it left the VM's stack at a different height.
func expectBalanced<R>(
    _ vm: LuaVM, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) rethrows -> R {
    let before = vm.stack.top
    defer {
        #expect(vm.stack.top == before, "stack height changed", sourceLocation: sourceLocation)
    }
    return try body()
}

/// Runs `body`, expecting it to throw a `LuaError`, and returns that error.
func expectLuaError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> LuaError? {
    do {
        try body()
        Issue.record("expected a LuaError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as LuaError {
        return error
    } catch {
        Issue.record("expected a LuaError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A Swift error with a recognisable message, to follow through the Lua boundary.
struct TestFailure: Error, Equatable, CustomStringConvertible {
    var description: String
}
