import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// Library functions that loop in C, where the count hook never fires, count their work against
/// the budget and the call time limit.
@Suite("Limits inside C functions")
struct CFunctionLimitTests {
    static let budget = 1_000_000
    static let budgetExceeded = "instruction budget of 1000000 instructions exceeded"
    static let limited = LuaVM.Configuration(instructionBudget: budget, hookInterval: 100)

    /// A subject of a few kilobytes and patterns that backtrack catastrophically on it.
    static let subject = "local s = ('a'):rep(4000)\n"
    static let backtracking = "('a*'):rep(12) .. 'b'"

    static let stops = [
        GuestStop(name: "string.find", source: subject + "string.find(s, \(backtracking))", line: 2),
        GuestStop(name: "method syntax (the string metatable)", source: subject + "s:find(\(backtracking))", line: 2),
        GuestStop(name: "string.match", source: subject + "local x = string.match(s, '(.-)(.-)(.-)(.-)b')", line: 2),
        GuestStop(
            name: "string.gmatch", source: subject + "for word in s:gmatch('%f[%w](%w*)%s*(%w*)(%w*)b') do end",
            line: 2),
        GuestStop(name: "string.gsub with a string", source: subject + "s:gsub('a-a-a-a-b', '%0')", line: 2),
        GuestStop(
            name: "string.gsub with a function",
            source: subject + "s:gsub('(a*)(a*)(a*)c', function(x)\n  return x\nend)", line: 2),
        GuestStop(name: "anchored", source: subject + "local ok = s:match('^(a-)(a-)(a-)(a-)$x')", line: 2),
        GuestStop(
            name: "back-references", source: "local s = ('ab'):rep(2000)\nlocal x = s:find('(.-)%1%1%1c')", line: 2),
        GuestStop(
            name: "balanced pairs scanned from every position",
            source: "local s = ('('):rep(20000)\nlocal x = s:find('%b()x')", line: 2),
        GuestStop(
            name: "a plain find with a long needle",
            source: "local s = ('a'):rep(200000)\nlocal x = s:find(('a'):rep(100000) .. 'b', 1, true)", line: 2),
        GuestStop(name: "caught by pcall, in a loop", source: subject + "while true do\n  pcall(string.find, s, \(backtracking))\nend", line: 3),
        GuestStop(
            name: "caught by xpcall with a handler",
            source: subject + "xpcall(string.find, function() return 'swallowed' end, s, \(backtracking))\nreturn 1", line: 2),
        GuestStop(
            name: "in a coroutine resumed in a loop",
            source: subject + "local co = coroutine.create(function() s:find(\(backtracking)) end)\nwhile true do coroutine.resume(co) end",
            line: 2),
        GuestStop(
            name: "from a gsub callback", source: subject + "local r = ('xyz'):gsub('.', function()\n  s:match(\(backtracking))\nend)",
            line: 3),
        GuestStop(name: "table.move over a huge empty range", source: "table.move({}, 1, 1 << 52, 1, {})", line: 1),
        GuestStop(
            name: "table.move within one table, backwards",
            source: "local t = {}\nlocal u = table.move(t, 1, math.maxinteger - 1, 2)", line: 2),
    ]

    @Test(arguments: stops)
    func theBudgetStopsWorkInC(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }

    @Test(arguments: stops)
    func theCallTimeLimitStopsWorkInC(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: .init(callTimeLimit: .milliseconds(200)), kind: .limit, says: "time limit of 0.2 s exceeded")
    }

    @Test func matchingCountsAgainstTheSameBudgetAsInstructions() throws {
        let vm = try LuaVM(configuration: Self.limited)
        // Each call is far under the budget; together they are over it, whether counted by the hook
        // (the loop) or by the matcher (the steps of each short match).
        let error = expectLuaError {
            _ = try vm.run("local s = ('a'):rep(200)\nfor i = 1, 1e6 do s:find('a-b') end", chunkName: "many.lua")
        }
        #expect(error?.kind == .limit)
        #expect(error?.location == LuaLocation(source: "many.lua", line: 2))
        // Work the budget allows runs to the end, with Lua's results.
        #expect(try vm.run("local s = ('a'):rep(200) .. 'b' return s:find('a-b')") == [1, 201])
        #expect(try vm.run("local t = table.move({1, 2, 3}, 1, 3, 2) return #t, t[1], t[4]") == [4, 1, 3])
        let moved = try vm.run("local t = {} for i = 1, 10000 do t[i] = i end table.move(t, 1, 9999, 2) return t[1], t[2], t[10000]")
        #expect(moved == [1, 1, 9999])
    }

    @Test func sortingWithoutAComparisonIsChargedItsComparisons() async throws {
        let stop = GuestStop(
            name: "sort", source: "local t = {} for i = 1, 1 << 17 do t[i] = -i end\ntable.sort(t)\nreturn t[1]", line: 2)
        try await stop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
        let vm = try LuaVM(configuration: Self.limited)
        // Under the budget, or with a comparison function (Lua code, counted by the hook), it sorts.
        #expect(try vm.run("local t = {} for i = 1, 1000 do t[i] = -i end table.sort(t) return t[1], t[1000]") == [-1000, -1])
        #expect(try vm.run("local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return t[1], t[3]") == [3, 1])
        #expect(try vm.run("local t = setmetatable({3, 1, 2}, {}) table.sort(t) return t[1], t[3]") == [1, 3])
        let unlimited = try LuaVM()
        #expect(try unlimited.run("local t = {} for i = 1, 1 << 17 do t[i] = -i end table.sort(t) return t[1]") == [.integer(-(1 << 17))])
    }

    /// Lua's `string.rep` loops `n` times even when each copy is empty.
    @Test(.hangGuard)
    func repeatingNothingReturnsAtOnce() throws {
        let vm = try LuaVM()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try vm.run("return string.rep('', 1 << 50), (''):rep(1e15, ''), ('x'):rep(0), ('ab'):rep(2, ',')") == ["", "", "", "ab,ab"])
        #expect(clock.now - start < Duration.seconds(5).allowingForSanitizers)
        let error = expectLuaError { _ = try vm.run("return ('x'):rep(1 << 62, 'yy')", chunkName: "big.lua") }
        #expect(error?.description == "big.lua:1: resulting string too large")
    }

    @Test func withoutLimitsLongMatchesRunToTheEnd() throws {
        let vm = try LuaVM()
        #expect(try vm.run("local s = ('a'):rep(3000) return #s:match('(a-)(a-)$')") == [0])
        #expect(try vm.run("local t = {} for i = 1, 10000 do t[i] = i end return #table.move(t, 1, 10000, 1, {})") == [10000])
    }
}
