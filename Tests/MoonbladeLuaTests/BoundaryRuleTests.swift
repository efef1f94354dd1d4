import MoonbladeLua
import Testing

/// The boundary rules of DESIGN.md that the bridge core enforces: each test fails if its rule breaks.
@Suite("Lua boundary rules")
struct BoundaryRuleTests {
    // Rule 1: no longjmp across Swift frames. If an error raised for a Swift function unwound its frame
    // with longjmp, the frame's `defer` would never run and its objects would never be released.
    @Test func swiftErrorUnwindsSwiftFramesNormallyAndLuaPcallCatchesIt() throws {
        let vm = try LuaVM()
        final class Tracked {
            nonisolated(unsafe) static var live = 0
            init() { Tracked.live += 1 }
            deinit { Tracked.live -= 1 }
        }
        var deferRan = false
        vm.register("fail") { _ in
            let tracked = Tracked()
            defer { deferRan = true; withExtendedLifetime(tracked) {} }
            throw TestFailure(description: "the disk is full")
        }
        let results = try expectBalanced(vm) {
            try vm.run(
                """
                local ok, message = pcall(fail)
                return ok, message
                """, chunkName: "caller.lua")
        }
        #expect(results == [false, "caller.lua:1: the disk is full"])
        #expect(deferRan)
        #expect(Tracked.live == 0)
    }

    @Test func uncaughtSwiftErrorReachesTheHostWithItsPlaceAndTheOriginalError() throws {
        let vm = try LuaVM()
        vm.register("fail") { _ in throw TestFailure(description: "no such key") }
        let error = expectLuaError {
            try expectBalanced(vm) {
                _ = try vm.run("local x = 1\nfail()\n", chunkName: "plugin.lua")
            }
        }
        #expect(error?.kind == .runtime)
        #expect(error?.location == LuaLocation(source: "plugin.lua", line: 2))
        #expect(error?.description == "plugin.lua:2: no such key")
        #expect(error?.underlying as? TestFailure == TestFailure(description: "no such key"))
    }

    // Rule 5: errors carry their place.
    @Test func luaRuntimeErrorCarriesFileLineAndTraceback() throws {
        let vm = try LuaVM()
        let error = expectLuaError {
            try expectBalanced(vm) {
                _ = try vm.run(
                    """
                    local function inner(t)
                      return t.missing.field
                    end
                    local function outer() local value = inner({}) return value end
                    outer()
                    """, chunkName: "todo/plugin.lua")
            }
        }
        #expect(error?.kind == .runtime)
        #expect(error?.location == LuaLocation(source: "todo/plugin.lua", line: 2))
        #expect(error?.description.hasPrefix("todo/plugin.lua:2: attempt to index a nil value") == true)
        #expect(error?.traceback?.contains("'inner'") == true)
        #expect(error?.traceback?.contains("todo/plugin.lua:4") == true)
    }

    @Test func errorObjectsThatAreNotStringsStillGiveAMessageAndAPlace() throws {
        let vm = try LuaVM()
        let table = expectLuaError { try vm.run("error({ code = 42 })", chunkName: "a.lua") }
        #expect(table?.message == "(error object is a table value)")
        #expect(table?.location == LuaLocation(source: "a.lua", line: 1))
        let described = expectLuaError {
            try vm.run("error(setmetatable({}, { __tostring = function() return 'custom' end }))", chunkName: "b.lua")
        }
        #expect(described?.message == "custom")
        let levelZero = expectLuaError { try vm.run("\n\nerror('bare', 0)", chunkName: "c.lua") }
        #expect(levelZero?.description == "c.lua:3: bare")
        #expect(vm.stack.top == 0)
    }

    @Test func nestedSwiftLuaSwiftLuaPropagatesTheInnermostError() throws {
        let vm = try LuaVM()
        let inner = try vm.load("local t = nil\nreturn t.x", chunkName: "inner.lua")
        var swiftSawError: LuaError?
        vm.register("callInner") { stack in
            do throws(LuaError) {
                try stack.call(arguments: 0, results: 0, function: inner)
            } catch {
                swiftSawError = error
                throw error
            }
            return 0
        }
        let error = expectLuaError {
            try expectBalanced(vm) { _ = try vm.run("callInner()", chunkName: "outer.lua") }
        }
        #expect(swiftSawError?.location == LuaLocation(source: "inner.lua", line: 2))
        #expect(error?.location == LuaLocation(source: "inner.lua", line: 2))
        #expect(error?.description.hasPrefix("inner.lua:2: attempt to index a nil value") == true)
    }

    @Test func nestedSwiftErrorKeepsItsIdentityThroughTwoLuaLayers() throws {
        let vm = try LuaVM()
        vm.register("deepest") { _ in throw TestFailure(description: "deep failure") }
        let middle = try vm.load("deepest()", chunkName: "middle.lua")
        vm.register("middle") { stack in
            try stack.call(arguments: 0, results: 0, function: middle)
            return 0
        }
        let error = expectLuaError {
            try expectBalanced(vm) { _ = try vm.run("middle()", chunkName: "top.lua") }
        }
        #expect(error?.description == "middle.lua:1: deep failure")
        #expect(error?.underlying as? TestFailure == TestFailure(description: "deep failure"))
    }

    @Test func nestedCallsReturnValuesThroughEveryLayer() throws {
        let vm = try LuaVM()
        vm.registerWithValues("twice") { arguments in
            guard case .integer(let n) = arguments.first else { throw TestFailure(description: "need an integer") }
            return [.integer(n * 2)]
        }
        let luaDouble = try vm.load("return twice(...) + 1", chunkName: "double.lua")
        vm.register("viaLua") { stack in
            try stack.call(arguments: stack.top, results: 1, function: luaDouble)
            return 1
        }
        let results = try expectBalanced(vm) { try vm.run("return viaLua(20)") }
        #expect(results == [41])
    }

    // Rule 2: no yield across Swift frames. Lua itself refuses, and the refusal is an error, not a crash.
    @Test func yieldingAcrossASwiftFunctionIsAnErrorNotACrash() throws {
        let vm = try LuaVM()
        let yielder = try vm.load("coroutine.yield(1)", chunkName: "yielder.lua")
        vm.register("callYielder") { stack in
            try stack.call(arguments: 0, results: 0, function: yielder)
            return 0
        }
        let results = try expectBalanced(vm) {
            try vm.run(
                """
                local co = coroutine.create(function() callYielder() end)
                return coroutine.resume(co)
                """, chunkName: "main.lua")
        }
        #expect(results.first == false)
        guard case .string(let message) = results.last else {
            Issue.record("expected a message, got \(results)")
            return
        }
        #expect(message.contains("attempt to yield across a C-call boundary"))
    }

    // Rule 4: memory limits bite Lua code, never the host's own pushes, and leave the VM usable.
    @Test func memoryBombIsAMemoryErrorAndTheVMSurvives() throws {
        let vm = try LuaVM(configuration: .init(memoryLimit: 4 << 20))
        let error = expectLuaError {
            try expectBalanced(vm) {
                _ = try vm.run("local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end", chunkName: "bomb.lua")
            }
        }
        #expect(error?.kind == .memory)
        #expect(error?.description.contains("memory limit") == true)
        #expect(try vm.run("collectgarbage() return 1 + 1") == [2])
        #expect(vm.memoryInUse < 4 << 20)
    }

    @Test func hostPushesAreNotLimited() throws {
        let vm = try LuaVM(configuration: .init(memoryLimit: 1 << 20))
        let big = LuaValue.table(Dictionary(uniqueKeysWithValues: (1...20_000).map { (LuaValue.integer(Int64($0)), LuaValue.string("item \($0)")) }))
        try expectBalanced(vm) {
            try vm.stack.push(big)
            #expect(vm.memoryInUse > 1 << 20)
            vm.stack.pop()
        }
        _ = try vm.run("collectgarbage()")
        #expect(try vm.run("return 'still alive'") == ["still alive"])
    }

    @Test func aSwiftFunctionCalledFromLuaPushesBeyondTheLimit() throws {
        // The trampoline disarms the limit while Swift pushes its results: host work never fails half-way.
        let vm = try LuaVM(configuration: .init(memoryLimit: 1 << 20))
        let big = LuaValue.table(Dictionary(uniqueKeysWithValues: (1...20_000).map { (LuaValue.integer(Int64($0)), LuaValue.string("item \($0)")) }))
        vm.register("big") { stack in
            try stack.push(big)
            return 1
        }
        #expect(try vm.run("local t = big() return #t") == [20_000])
    }

    @Test func aNaNTableKeyIsAConversionErrorNotARaise() throws {
        let vm = try LuaVM()
        try expectBalanced(vm) {
            let error = try #require(throws: LuaError.self) {
                try vm.stack.push(.table([.number(.nan): .integer(1), .integer(1): .integer(2)]))
            }
            #expect(error.kind == .conversion)
        }
    }

    @Test func stringBombInOneAllocationIsRefused() throws {
        let vm = try LuaVM(configuration: .init(memoryLimit: 8 << 20))
        let error = expectLuaError { try vm.run("return ('x'):rep(1 << 30)", chunkName: "rep.lua") }
        #expect(error?.kind == .memory)
        #expect(vm.stack.top == 0)
    }
}
