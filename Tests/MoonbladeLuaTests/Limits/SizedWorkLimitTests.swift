import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// Work that costs far more than its instructions: library functions that scan or copy megabytes in
/// C, and instructions (`..`) that copy megabytes. They are charged by size, and a large allocation
/// makes the thread check its limits at its next instruction, so a loop of a few instructions doing
/// such work stops within its budget or time limit, not `hookInterval` instructions later.
@Suite("Limits on work in C, by its size", .serialized)
struct SizedWorkLimitTests {
    static let budget = 1_000_000
    static let budgetExceeded = "instruction budget of 1000000 instructions exceeded"
    static let limited = LuaVM.Configuration(instructionBudget: budget)
    /// The hook runs so rarely that only the charges by size can stop these loops in time.
    static let rarelyHooked = LuaVM.Configuration(instructionBudget: budget, hookInterval: 10_000_000)

    /// One line each, so that the place is the same wherever the time limit finds the code (the
    /// tests run in parallel on few cores: even the set-up may take a second of wall-clock time).
    static let loops = [
        GuestStop(name: "string.packsize", source: "local f = ('i16'):rep(1e6) while true do string.packsize(f) end", line: 1),
        GuestStop(name: "string.pack", source: "local f = ('x'):rep(3e6) while true do string.pack(f) end", line: 1),
        GuestStop(
            name: "string.unpack", source: "local f, d = ('b'):rep(1e5), ('x'):rep(1e5) while true do string.unpack(f, d) end",
            line: 1),
        GuestStop(
            name: "string.format", source: "local s = ('x'):rep(1e6) while true do local r = string.format('%s%s', s, s) end",
            line: 1),
        GuestStop(name: "utf8.len", source: "local s = ('x'):rep(8e6) while true do utf8.len(s) end", line: 1),
        GuestStop(name: "string.byte of a whole string", source: "local s = ('x'):rep(1e5) while true do s:byte(1, -1) end", line: 1),
        GuestStop(
            name: "utf8.codepoint of a whole string", source: "local s = ('x'):rep(1e5) while true do utf8.codepoint(s, 1, -1) end",
            line: 1),
        GuestStop(name: "utf8.offset across a huge string", source: "local s = ('x'):rep(8e6) while true do utf8.offset(s, #s) end", line: 1),
        GuestStop(
            name: "utf8.offset back over huge continuation bytes",
            source: "local s = 'x' .. ('\\x80'):rep(8e6) while true do utf8.offset(s, 0, #s) end", line: 1),
        GuestStop(name: "string.upper", source: "local s = ('x'):rep(8e6) while true do s:upper() end", line: 1),
        GuestStop(name: "tonumber", source: "local s = (' '):rep(8e6) .. '1' while true do tonumber(s) end", line: 1),
        GuestStop(
            name: "table.concat",
            source: "local t = {} for i = 1, 1e5 do t[i] = 'abcdefgh' end while true do local r = table.concat(t, ',') end",
            line: 1),
        GuestStop(
            name: "table.insert at the front",
            source: "local t = {} for i = 1, 1e5 do t[i] = i end while true do table.insert(t, 1, 0) table.remove(t, 1) end",
            line: 1),
        GuestStop(
            name: "table.insert at a float position",
            source: "local t = {} for i = 1, 1e5 do t[i] = i end while true do table.insert(t, 1.0, 0) table.remove(t, '1') end",
            line: 1),
        GuestStop(
            name: "table.insert into a table whose __len lies",
            source: "local t = setmetatable({}, { __len = function() return 1e6 end }) while true do table.insert(t, 1, 0) end",
            line: 1),
        GuestStop(
            name: "string.unpack of a zero-terminated string never terminated",
            source: "local d = ('x'):rep(1e6) while true do pcall(string.unpack, 'z', d) end", line: 1),
        GuestStop(
            name: "load with a reader",
            source: "local s, first = ('1+'):rep(5e5), true load(function() if first then first = false return 'return ' end return s end)",
            line: 1),
        GuestStop(name: "load", source: "local src = 'return ' .. ('1+'):rep(1e6) .. '1' while true do load(src) end", line: 1),
        GuestStop(
            name: "gsub of many short matches", source: "local s = ('x'):rep(4e6) while true do s:gsub('x', { x = 'yy' }) end",
            line: 1),
        GuestStop(name: "string.rep with a separator", source: "local s = ('x'):rep(1e6) while true do local r = s:rep(5, ',') end", line: 1),
        GuestStop(name: "the .. instruction", source: "local s = ('x'):rep(1 << 20) while true do local r = s .. 'y' end", line: 1),
        GuestStop(
            name: "the .. instruction in a coroutine.wrap",
            source: "local s = ('x'):rep(1 << 20) coroutine.wrap(function() while true do local r = s .. 'y' end end)()", line: 1),
        GuestStop(
            name: "the .. instruction in a coroutine.resume",
            source: "local s = ('x'):rep(1 << 20) coroutine.resume(coroutine.create(function() while true do local r = s .. 'y' end end))",
            line: 1),
    ]

    @Test(arguments: loops)
    func theBudgetStopsALoopOfSizedWork(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }

    /// One of each kind of charge (a time limit runs its whole length: a few, to spare the cores).
    @Test(
        arguments: loops.filter { ["string.packsize", "table.concat", "load", "gsub of many short matches", "the .. instruction"].contains($0.name) })
    func theCallTimeLimitStopsALoopOfSizedWork(_ stop: GuestStop) async throws {
        try await stop.expectStopped(
            with: .init(instructionBudget: nil, callTimeLimit: .milliseconds(500)), kind: .limit,
            says: "time limit of 0.5 s exceeded")
    }

    /// With the hook every ten million instructions, an instruction that allocates megabytes is what
    /// makes the thread check: the budget is met after a few dozen copies, not millions.
    @Test(arguments: loops.filter { $0.name.hasPrefix("the .. instruction") })
    func aLargeAllocationChecksAtTheNextInstruction(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: Self.rarelyHooked, kind: .limit, says: Self.budgetExceeded)
    }

    /// The stand-ins that guard library functions (counted `table.move`, `table.sort`, `string.rep`,
    /// the guarded coroutine functions, `setmetatable` without `__gc`) run the library's own in their
    /// frame, so its argument errors name the function as the script called it, as plain Lua does:
    /// called from C, they said `bad argument #5 to '?'`.
    @Test(arguments: [
        ("table.move({}, 1, 2, 1, 5)", "bad argument #5 to 'move' (table expected, got number)"),
        ("local t = {} table.move(t, 1, 5000, 1, 5)", "bad argument #5 to 'move' (table expected, got number)"),
        ("table.sort(5)", "bad argument #1 to 'sort' (table expected, got number)"),
        ("string.rep({}, 2)", "bad argument #1 to 'rep' (string expected, got table)"),
        ("coroutine.wrap(5)", "bad argument #1 to 'wrap' (function expected, got number)"),
        ("coroutine.resume(5)", "bad argument #1 to 'resume' (thread expected, got number)"),
        ("coroutine.close(5)", "bad argument #1 to 'close' (thread expected, got number)"),
        ("setmetatable(5, {})", "bad argument #1 to 'setmetatable' (table expected, got number)"),
    ])
    func guardedLibraryFunctionsAreNamedInTheirArgumentErrors(source: String, message: String) throws {
        let vm = try LuaVM(configuration: Self.limited)
        let error = expectLuaError { _ = try vm.run(source, chunkName: "call.lua") }
        #expect(error?.message == "call.lua:1: " + message)
        // What they return is unchanged: the stand-ins leave the library function's results only.
        #expect(
            try vm.run(
                """
                local t = {} for i = 1, 10000 do t[i] = i end
                local co = coroutine.create(function(a) coroutine.yield(a + 1) return 'done' end)
                local _, first = coroutine.resume(co, 1)
                local _, second = coroutine.resume(co)
                return table.move(t, 1, 10000, 2)[10001], first, second, coroutine.wrap(function() return 7 end)(),
                  coroutine.close(coroutine.create(print)), string.rep('ab', 2, ','), getmetatable(setmetatable({}, { x = 1 })).x
                """) == [10000, 2, "done", 7, true, "ab,ab", 1])
    }

    @Test func sizedFunctionsKeepTheirResultsAndTheirNamesInErrors() throws {
        let vm = try LuaVM(configuration: Self.limited)
        let long = "local s = ('x'):rep(5000) "
        #expect(try vm.run(long + "return #s:upper(), utf8.len(s), #string.format('%s!', s), string.packsize('i4i8')") == [5000, 5000, 5001, 12])
        #expect(
            try vm.run(
                "local t = {} for i = 1, 1000 do t[i] = i end table.insert(t, 1, 0) return table.remove(t, 1), #t, table.concat(t, ',', 1, 3), select('#', table.unpack(t))"
            ) == [0, 1000, "1,2,3", 1000])
        #expect(try vm.run(long + "return tonumber(s), (load('return ' .. ('1+'):rep(600) .. '1'))()") == [.nil, 601])
        #expect(
            try vm.run("local parts = { 'return ', ('1+'):rep(600), '1' } local i = 0 return load(function() i = i + 1 return parts[i] end)()") == [
                601
            ])
        let badReader = expectLuaError { _ = try vm.run("return assert(load(function() return {} end))", chunkName: "reader.lua") }
        #expect(badReader?.message.contains("reader function must return a string") == true, "\(String(describing: badReader))")
        let badArgument = expectLuaError { _ = try vm.run(long + "return utf8.len(s, {})", chunkName: "arg.lua") }
        #expect(badArgument?.message.contains("bad argument #2 to 'len' (number expected, got table)") == true, "\(String(describing: badArgument))")
        let badConcat = expectLuaError {
            _ = try vm.run("local t = {} for i = 1, 1000 do t[i] = {} end return table.concat(t)", chunkName: "concat.lua")
        }
        #expect(badConcat?.message.contains("invalid value (table) at index 1 in table for 'concat'") == true, "\(String(describing: badConcat))")
        // Work the budget allows is not refused: a few megabytes scanned are a fraction of it.
        #expect(try vm.run("local s = ('x'):rep(1 << 20) return utf8.len(s), #s:upper()") == [.integer(1 << 20), .integer(1 << 20)])
    }

    /// Work that touches a little of something big is charged for the little: stepping through a
    /// long string with `sub`, unpacking a field from a long blob, emptying a long list from its end.
    /// Charged by their whole inputs, each loop took 15 to 80 times the budget.
    @Test func touchingALittleOfSomethingBigStaysWithinTheBudget() throws {
        let vm = try LuaVM(configuration: Self.limited)
        #expect(
            try vm.run("local s = ('x'):rep(200000) local n = 0 for i = 1, 2000 do if s:sub(i, i) == 'x' then n = n + 1 end end return n") == [2000])
        #expect(
            try vm.run("local blob = ('x'):rep(1 << 20) local n = 0 for i = 1, 1000 do n = n + string.unpack('B', blob, i) end return n") == [120_000]
        )
        #expect(try vm.run("local t = {} for i = 1, 20000 do t[i] = i end for i = 1, 20000 do table.remove(t, #t) end return #t") == [0])
    }

    /// Reading a little of a long string by position is charged for the little: `byte`, `codepoint`,
    /// `len` and `offset` read the range they are given (or, for `offset`, walk), not the whole string.
    /// Charged by the whole megabyte, each loop met the budget within its first ten steps.
    @Test func steppingThroughALongStringByPositionStaysWithinTheBudget() throws {
        let vm = try LuaVM(configuration: Self.limited)
        let long = "local s = ('x'):rep(1 << 20) local n = 0 "
        #expect(try vm.run(long + "for i = 1, 20000 do n = n + s:byte(i) end return n") == [.integer(20000 * 120)])
        #expect(try vm.run(long + "for i = 1, 20000 do n = n + utf8.codepoint(s, i) end return n") == [.integer(20000 * 120)])
        #expect(try vm.run(long + "for i = 1, 20000 do n = n + utf8.len(s, i, i + 9) end return n") == [.integer(20000 * 10)])
        #expect(try vm.run(long + "local i = 1 for _ = 1, 20000 do i = utf8.offset(s, 2, i) end return i") == [20001])
        #expect(try vm.run(long + "local i = #s + 1 for _ = 1, 20000 do i = utf8.offset(s, -1, i) end return #s - i") == [19999])
        // Their results and errors are Lua's own.
        #expect(try vm.run("return ('abc'):byte(-2, 10)") == [98, 99])
        #expect(
            try vm.run("return utf8.codepoint('héllo', 2), utf8.len('héllo', -3), utf8.offset('héllo', 3), utf8.offset('héllo', 9)") == [
                233, 3, 4, .nil,
            ])
        let outOfBounds = expectLuaError { _ = try vm.run("return utf8.codepoint('abc', 1, 9)", chunkName: "cp.lua") }
        #expect(outOfBounds?.message.contains("bad argument #3 to 'codepoint' (out of bounds)") == true, "\(String(describing: outOfBounds))")
        let notANumber = expectLuaError { _ = try vm.run("return utf8.offset('abc', {})", chunkName: "off.lua") }
        #expect(notANumber?.message.contains("bad argument #2 to 'offset' (number expected, got table)") == true, "\(String(describing: notANumber))")
    }

    /// `rawequal` is `==` without metamethods: two long strings of one length are compared byte by
    /// byte either way, as one step. It was charged by its arguments' size (two 8 MB strings: twice
    /// the budget in one call) while `a == b` was not; now both cost what the hook counts.
    @Test func rawequalIsChargedAsEqualityIs() throws {
        let vm = try LuaVM(configuration: Self.limited)
        let strings = "local a, b, n = ('x'):rep(8e6), ('x'):rep(8e6 - 1) .. 'x', 0 "
        #expect(try vm.run(strings + "for i = 1, 100 do if a == b then n = n + 1 end end return n") == [100])
        #expect(try vm.run(strings + "for i = 1, 100 do if rawequal(a, b) then n = n + 1 end end return n") == [100])
    }

    /// What bounds a loop of comparisons of long strings, written either way: the call's time limit.
    @Test(arguments: [
        GuestStop(name: "==", source: "local a, b = ('x'):rep(8e6), ('x'):rep(8e6 - 1) .. 'x' while true do local e = a == b end", line: 1),
        GuestStop(name: "rawequal", source: "local a, b = ('x'):rep(8e6), ('x'):rep(8e6 - 1) .. 'x' while true do rawequal(a, b) end", line: 1),
    ])
    func theCallTimeLimitStopsALoopComparingLongStrings(_ stop: GuestStop) async throws {
        try await stop.expectStopped(
            with: .init(instructionBudget: nil, callTimeLimit: .milliseconds(500)), kind: .limit,
            says: "time limit of 0.5 s exceeded")
    }

    /// Making the thread check at its next instruction restarts the hook's count: with the hook every
    /// 100,000 instructions, each 64 KB copy dropped the 10,000 instructions before it, and the loop
    /// ran about 970 times on a budget that pays for 90. A large allocation now asks for the check
    /// only once it has spent the budget, so the count is never lost from a call that goes on.
    @Test func aLargeAllocationLosesNoCountedInstructions() throws {
        let vm = try LuaVM(configuration: .init(instructionBudget: Self.budget, hookInterval: 100_000))
        let error = expectLuaError {
            _ = try vm.run("n = 0 local s = ('x'):rep(1 << 16) while true do for i = 1, 10000 do end local r = s .. 'y' n = n + 1 end")
        }
        #expect(error?.message.contains(Self.budgetExceeded) == true, "\(String(describing: error))")
        // 10,000 instructions and 1,024 steps for the copy a round: the budget pays for 90 of them.
        let rounds = try vm.run("return n >= 80 and n <= 100, n")
        #expect(rounds.first == true, "\(rounds)")
    }

    /// Lua's parser runs under the running message handler: a chunk too deeply nested to compile came
    /// back from `load` as the host's error description (a table) instead of its message.
    @Test func loadReturnsTheMessageOfAChunkTooDeepToCompile() throws {
        let vm = try LuaVM(configuration: Self.limited)
        let results = try vm.run("local f, message = load('return ' .. ('('):rep(1e5) .. '1' .. (')'):rep(1e5)) return f, type(message), message")
        #expect(results.count == 3)
        #expect(results.first == .nil)
        #expect(results.dropFirst().first == "string")
        #expect(String(describing: results.last).contains("C stack overflow"), "\(results)")
        let syntax = try vm.run("local f, message = load('x = = 1', '=chunk') return message")
        #expect(syntax == ["chunk:1: unexpected symbol near '='"])
    }
}
