import MoonbladeLua
import Testing

@Suite("Sandbox environments")
struct SandboxEnvironmentTests {
    /// Loads `source` into a fresh sandbox and runs it.
    static func runSandboxed(_ vm: LuaVM, _ source: String, chunkName: String) throws -> [LuaValue] {
        let base = vm.stack.top
        try vm.stack.load(source, chunkName: chunkName)
        try vm.stack.pushSandbox()
        vm.stack.setEnvironment(ofChunkAt: -2)
        try vm.stack.call(results: nil)
        return try vm.stack.popValues(vm.stack.top - base)
    }

    @Test func eachSandboxHasItsOwnGlobalsAndTheHostsStayApart() throws {
        let vm = try LuaVM()
        #expect(try Self.runSandboxed(vm, "shared = 1 return shared", chunkName: "a.lua") == [1])
        let error = expectLuaError { _ = try Self.runSandboxed(vm, "return shared", chunkName: "b.lua") }
        #expect(error?.description == "b.lua:1: undefined global 'shared'")
        #expect(try vm.global("shared") == .nil)
        #expect(vm.stack.top == 0)
    }

    @Test func theHostsOwnGlobalsKeepTheRealLibraries() throws {
        let vm = try LuaVM()
        _ = try Self.runSandboxed(vm, "pcall(function() string.upper = nil end) return 1", chunkName: "a.lua")
        #expect(
            try vm.run("string.extra = 1 collectgarbage() return string.upper('x'), string.extra") == [
                "X", 1,
            ])
    }
}
