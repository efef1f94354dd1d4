import CLua
import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// The instruction budget and deadlines: guest code that runs too long is stopped with a limit error
/// no `pcall` can swallow, and the VM carries on.
@Suite("Instruction budget and deadlines")
struct InstructionBudgetTests {
    static let budget = 200_000

    static func limitedVM() throws -> LuaVM {
        try LuaVM(configuration: .init(instructionBudget: budget, hookInterval: 100))
    }

    /// Runaway code in each place a limit error could be caught or hidden.
    @Test(arguments: [
        (source: "while true do end", line: 1),
        (source: "local n = 0\nwhile true do pcall(function() while true do n = n + 1 end end) end", line: 2),
        (source: "repeat local ok = pcall(error, 'x') until false", line: 1),
        (source: "xpcall(function() while true do end end,\n  function() while true do end end)", line: 1),
        (
            source:
                "xpcall(function() while true do end end, function(e) return 'swallowed' end)\nwhile true do end",
            line: 1
        ),
        (source: "coroutine.wrap(function()\n  while true do end\nend)()", line: 2),
        (
            source:
                "local co = coroutine.create(function() while true do end end)\nwhile true do coroutine.resume(co) end",
            line: 1
        ),
        (
            source:
                "local t = setmetatable({}, { __index = function(t, k)\n  while true do end end })\nreturn t.x",
            line: 2
        ),
        (source: "return (('x'):rep(10)):gsub('x', function()\n  while true do end end)", line: 2),
        (
            source:
                "local t = {} for i = 1, 100 do t[i] = i end\ntable.sort(t, function(a, b)\n  while true do end end)",
            line: 3
        ),
        (source: "error(setmetatable({}, { __tostring = function()\n  while true do end end }))", line: 1),
        (source: "local function f() local ok = pcall(f) while true do end end\nf()", line: 1),
    ])
    func runawayCodeIsStoppedAndCannotBeSwallowed(source: String, line: Int) throws {
        let vm = try Self.limitedVM()
        let error = expectLuaError {
            try expectBalanced(vm) { _ = try vm.run(source, chunkName: "loop.lua") }
        }
        #expect(error?.kind == .limit)
        #expect(
            error?.message.contains("instruction budget of \(Self.budget) instructions exceeded") == true,
            "\(error.map(String.init(describing:)) ?? "")")
        #expect(
            error?.location == LuaLocation(source: "loop.lua", line: line),
            "\(error.map(String.init(describing:)) ?? "")")
        #expect(try vm.run("local n = 0 for i = 1, 1000 do n = n + i end return n") == [500_500])
    }

    @Test func eachCallGetsAFreshBudgetAndNestedCallsShareIt() throws {
        let vm = try Self.limitedVM()
        let spin = try vm.load("local n = ... for i = 1, n do end", chunkName: "spin.lua")
        for _ in 0..<5 {  // each well under the budget, together well over it
            try vm.call(spin, [.integer(Int64(Self.budget / 4))])
        }
        vm.register("spinInSwift") { stack in
            try stack.call(arguments: 1, results: 0, function: spin)
            return 0
        }
        let error = expectLuaError {
            _ = try vm.run("for i = 1, 10 do spinInSwift(\(Self.budget / 4)) end", chunkName: "outer.lua")
        }
        #expect(error?.kind == .limit)
    }

    @Test func withoutABudgetOrWithoutTheHookLongLoopsRun() throws {
        let loop = "local n = 0 for i = 1, 3000000 do n = n + 1 end return n"
        #expect(try LuaVM().run(loop) == [3_000_000])
        #expect(
            try LuaVM(configuration: .init(instructionBudget: 1000, hookInterval: nil)).run(loop) == [
                3_000_000
            ])
    }

    @Test func aPassedDeadlineStopsACoroutineWithALimitError() throws {
        let vm = try LuaVM()
        let body = try vm.load("local n = 0\nwhile true do n = n + 1 end", chunkName: "slow.lua")
        let coroutine = LuaCoroutine(in: vm.stack)
        body.push(onto: coroutine.stack)
        let error = expectLuaError {
            _ = try coroutine.resume(
                arguments: 0, from: vm.stack, deadline: LuaDeadline(after: .milliseconds(50)))
        }
        #expect(error?.kind == .limit)
        #expect(error?.description == "slow.lua:2: time limit of 0.05 s exceeded")
        #expect(vm.stack.top == 0)
        #expect(try vm.run("return 1 + 1") == [2])
    }

    @Test func aDeadlineOnlyAppliesToTheResumeGivenIt() throws {
        let vm = try LuaVM()
        let deadline = LuaDeadline(after: .zero)
        #expect(deadline.remaining == .zero)
        let coroutine = LuaCoroutine(in: vm.stack)
        try vm.stack.load("coroutine.yield() return 'done'", chunkName: "quick.lua")
        lua_xmove(vm.stack.state, coroutine.stack.state, 1)
        #expect(try coroutine.resume(arguments: 0, from: vm.stack, deadline: deadline) == .yielded(0))
        #expect(try vm.run("local n = 0 for i = 1, 100000 do n = n + 1 end return n") == [100_000])
        #expect(try coroutine.resume(arguments: 0, from: vm.stack) == .returned(1))
    }

    @Test(.hangGuard)
    func aCoroutineErrorWhoseTostringLoopsIsStoppedByTheBudget() throws {
        let vm = try LuaVM(configuration: .init(instructionBudget: 100_000, hookInterval: 100))
        let coroutine = LuaCoroutine(in: vm.stack)
        try vm.stack.load(
            "error(setmetatable({}, { __tostring = function() while true do end end }))", chunkName: "spin.lua")
        lua_xmove(vm.stack.state, coroutine.stack.state, 1)
        let error = try #require(throws: LuaError.self) { try coroutine.resume(arguments: 0, from: vm.stack) }
        #expect(error.kind == .limit)
        #expect(error.message == "spin.lua:1: instruction budget of 100000 instructions exceeded in the __tostring of an error object")
        #expect(error.location == LuaLocation(source: "spin.lua", line: 1))
        #expect(try vm.run("return 'still alive'") == ["still alive"])
    }

    /// The error object's `__tostring` is plugin code: a limit stops it, and the error is reported at
    /// the `error(...)` call, where the plugin author can act, not inside the `__tostring`.
    static let errorObjects = [
        GuestStop(
            name: "a loop",
            source: "local e = setmetatable({}, { __tostring = function()\n  while true do end\nend })\nerror(e)", line: 4),
        GuestStop(
            name: "backtracking",
            source: "local e = setmetatable({}, { __tostring = function()\n  return ('a'):rep(4000):match('(.-)(.-)(.-)b')\nend })\n\nerror(e)",
            line: 5),
        GuestStop(
            name: "raised from a nested function",
            source: "local e = setmetatable({}, { __tostring = function() while true do end end })\nlocal function fail()\n  error(e)\nend\nfail()",
            line: 3),
    ]

    @Test(arguments: errorObjects)
    func anErrorObjectWhoseTostringRunsAwayIsReportedAtTheErrorCall(_ stop: GuestStop) async throws {
        try await stop.expectStopped(
            with: .init(instructionBudget: Self.budget, hookInterval: 100), kind: .limit,
            says: "instruction budget of \(Self.budget) instructions exceeded in the __tostring of an error object")
        try await stop.expectStopped(
            with: .init(callTimeLimit: .milliseconds(200)), kind: .limit,
            says: "time limit of 0.2 s exceeded in the __tostring of an error object")
    }

    @Test func anErrorObjectWhoseTostringRunsOutOfMemoryIsReportedAtTheErrorCall() async throws {
        let stop = GuestStop(
            name: "memory", source: "local e = setmetatable({}, { __tostring = function() return ('x'):rep(1 << 30) end })\nerror(e)",
            line: 2)
        try await stop.expectStopped(
            with: .init(memoryLimit: 16 << 20), kind: .memory,
            says: "memory limit of 16777216 bytes exceeded in the __tostring of an error object")
    }
}
