import MoonbladeLua
import Testing

@Suite("The VM: loading, libraries, references")
struct LuaVMTests {
    @Test func syntaxErrorsNameTheChunkAndLine() throws {
        let vm = try LuaVM()
        let error = expectLuaError { _ = try vm.load("local x = 1\nlocal = 2\n", chunkName: "broken/plugin.lua") }
        #expect(error?.kind == .syntax)
        #expect(error?.location == LuaLocation(source: "broken/plugin.lua", line: 2))
        #expect(error?.description.hasPrefix("broken/plugin.lua:2:") == true)
        #expect(vm.stack.top == 0)
    }

    @Test func binaryChunksAreRefused() throws {
        let vm = try LuaVM()
        let results = try vm.run(#"return load("\27Lua\84\0", "bin", "b")"#)
        #expect(results.first == .nil)
        guard case .string(let message) = results.last else {
            Issue.record("expected an error message, got \(results)")
            return
        }
        #expect(message.contains("attempt to load a binary chunk"))
        #expect(try vm.run("return load('return 1 + 1')()") == [2])
        #expect(try vm.run("return load('return x', 'env', 't', { x = 7 })()") == [7])
    }

    @Test func onlyTheSafeLibrariesAreThere() throws {
        let vm = try LuaVM()
        let results = try vm.run(
            """
            return io == nil, debug == nil, package == nil, require == nil, dofile == nil, loadfile == nil,
                   string.dump == nil, os.execute == nil, os.remove == nil, os.getenv == nil,
                   type(os.time()), type(os.clock()), type(os.date("%Y")),
                   type(string.format), type(table.concat), type(math.floor), type(utf8.char),
                   type(coroutine.wrap)
            """)
        #expect(
            results == [
                true, true, true, true, true, true, true, true, true, true,
                "number", "number", "string", "function", "function", "function", "function", "function",
            ])
    }

    @Test func aReferenceKeepsItsValueAliveUntilReleased() throws {
        let vm = try LuaVM()
        try vm.run("collected = false")
        var reference: LuaReference? = try expectBalanced(vm) {
            try vm.stack.load("return setmetatable({}, { __gc = function() collected = true end })", chunkName: "gc.lua")
            try vm.stack.call(results: 1)
            return vm.stack.popReference()
        }
        #expect(try vm.run("collectgarbage() collectgarbage() return collected") == [false])
        withExtendedLifetime(reference) {}
        reference = nil
        #expect(try vm.run("collectgarbage() collectgarbage() return collected") == [true])
    }

    @Test func aSwiftFunctionIsReleasedWhenLuaDropsIt() throws {
        final class Token {}
        weak var weakToken: Token?
        let vm = try LuaVM()
        do {
            let token = Token()
            weakToken = token
            vm.register("holder") { _ in
                withExtendedLifetime(token) {}; return 0
            }
        }
        #expect(weakToken != nil)
        try vm.run("holder = nil collectgarbage() collectgarbage()")
        #expect(weakToken == nil)
    }

    @Test func referencesKeepTheirOwnValuesWhileOthersComeAndGo() throws {
        let vm = try LuaVM()
        func reference(to n: Int) throws -> LuaReference {
            try vm.stack.load("return \(n)", chunkName: "value.lua")
            try vm.stack.call(results: 1)
            return vm.stack.popReference()
        }
        var kept: [Int: LuaReference] = [:]
        for n in 0..<50 { kept[n] = try reference(to: n) }
        for n in stride(from: 0, to: 50, by: 3) { kept[n] = nil }  // their slots are handed out again below
        for n in 50..<80 { kept[n] = try reference(to: n) }
        for (n, reference) in kept {
            reference.push(onto: vm.stack)
            #expect(vm.stack.integer(at: -1) == Int64(n))
            vm.stack.pop()
        }
    }

    @Test func referencesOutlivingTheirVMAreHarmless() throws {
        var vm: LuaVM? = try LuaVM()
        let reference = try vm!.load("return 1", chunkName: "orphan.lua")
        vm = nil
        withExtendedLifetime(reference) {}
    }

    @Test func closingTheVMReleasesSwiftFunctionsThatCaptureReferences() throws {
        final class Token {}
        weak var weakToken: Token?
        do {
            let vm = try LuaVM()
            let callback = try vm.load("return 1", chunkName: "callback.lua")
            let token = Token()
            weakToken = token
            vm.register("useCallback") { stack in
                withExtendedLifetime(token) {}
                try stack.call(results: 1, function: callback)
                return 1
            }
            #expect(try vm.run("return useCallback()") == [1])
        }
        #expect(weakToken == nil)
    }

    @Test func memoryInUseTracksAllocations() throws {
        let vm = try LuaVM()
        try vm.run("collectgarbage()")  // so that no garbage from opening the VM is freed below
        let before = vm.memoryInUse
        try vm.run("big = ('x'):rep(1 << 20)")
        #expect(vm.memoryInUse >= before + (1 << 20))
        try vm.run("big = nil collectgarbage()")
        #expect(vm.memoryInUse < before + (1 << 20))
    }
}

@Suite("Coroutines driven by the host")
struct LuaCoroutineTests {
    @Test func yieldsAndResumesWithValuesBothWays() throws {
        let vm = try LuaVM()
        let body = try vm.load("local got = coroutine.yield(...) return got * 10", chunkName: "co.lua")
        let coroutine = LuaCoroutine(in: vm.stack)
        body.push(onto: coroutine.stack)
        coroutine.stack.push(Int64(4))
        #expect(try coroutine.resume(arguments: 1, from: vm.stack) == .yielded(1))
        #expect(coroutine.stack.integer(at: -1) == 4)
        coroutine.stack.pop()
        coroutine.stack.push(Int64(7))
        #expect(try coroutine.resume(arguments: 1, from: vm.stack) == .returned(1))
        #expect(coroutine.stack.integer(at: -1) == 70)
        #expect(vm.stack.top == 0)
    }

    @Test func anErrorInsideACoroutineCarriesItsPlaceAndTraceback() throws {
        let vm = try LuaVM()
        let body = try vm.load("coroutine.yield()\nlocal t = nil\nreturn t.field", chunkName: "effect.lua")
        let coroutine = LuaCoroutine(in: vm.stack)
        body.push(onto: coroutine.stack)
        #expect(try coroutine.resume(arguments: 0, from: vm.stack) == .yielded(0))
        let error = expectLuaError { _ = try coroutine.resume(arguments: 0, from: vm.stack) }
        #expect(error?.location == LuaLocation(source: "effect.lua", line: 3))
        #expect(error?.traceback?.contains("effect.lua:3") == true)
        #expect(vm.stack.top == 0)
    }
}
