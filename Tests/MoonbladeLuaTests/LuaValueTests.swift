import MoonbladeLua
import Testing

@Suite("Values across the boundary")
struct LuaValueTests {
    @Test(arguments: [
        LuaValue.nil, true, false, 0, 42, .integer(.max), .integer(.min), 0.5, -1e300, .number(.infinity),
        "", "plain", "embedded\0nul\0bytes", "ünïcødé ✓",
        [1, 2, 3], ["name": "milk", "done": false, "tags": ["a", "b"]], [[["deep"]]],
    ])
    func roundTripsExactly(_ value: LuaValue) throws {
        let vm = try LuaVM()
        try expectBalanced(vm) {
            try vm.stack.push(value)
            #expect(try vm.stack.value(at: -1) == value)
            vm.stack.pop()
        }
    }

    @Test func integersAndFloatsKeepTheirSubtype() throws {
        let vm = try LuaVM()
        #expect(try vm.run("return 3, 3.0, 2^53, 7 // 2, 7 / 2") == [3, 3.0, .number(9007199254740992), 3, 3.5])
    }

    @Test func stringsWithNulBytesComeFromLuaExactly() throws {
        let vm = try LuaVM()
        #expect(try vm.run(#"return "a\0b", #"a\0b""#) == ["a\0b", 3])
    }

    @Test func aTableThatContainsItselfIsAConversionErrorAndTheStackIsRestored() throws {
        let vm = try LuaVM()
        try expectBalanced(vm) {
            try vm.stack.load("local t = { child = {} } t.child.parent = t return t", chunkName: "cycle.lua")
            try vm.stack.call(results: 1)
            let error = expectLuaError { _ = try vm.stack.value(at: -1) }
            #expect(error?.kind == .conversion)
            vm.stack.pop()
        }
    }

    @Test func sharedButAcyclicTablesAreFine() throws {
        let vm = try LuaVM()
        #expect(try vm.run("local shared = { 1 } return { a = shared, b = shared }") == [["a": [1], "b": [1]]])
    }

    @Test func functionsHaveNoDataForm() throws {
        let vm = try LuaVM()
        let error = expectLuaError { _ = try vm.run("return { callback = print }") }
        #expect(error?.kind == .conversion)
        #expect(error?.message.contains("function") == true)
        #expect(vm.stack.top == 0)
    }

    @Test func globalsAreReadAndWrittenRaw() throws {
        let vm = try LuaVM()
        try expectBalanced(vm) {
            try vm.setGlobal("config", to: ["limit": 10])
            #expect(try vm.run("return config.limit") == [10])
            #expect(try vm.global("config") == ["limit": 10])
            #expect(try vm.global("undefined") == .nil)
        }
    }

    @Test func metatablesAreNotConsultedByTheHost() throws {
        let vm = try LuaVM()
        let results = try vm.run(
            """
            return setmetatable({ real = 1 }, {
              __index = function() error("host called __index") end,
              __pairs = function() error("host called __pairs") end,
            })
            """)
        #expect(results == [["real": 1]])
    }
}
