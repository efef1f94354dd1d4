import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// Sorting compares in C, where the count hook never fires, `print` writes in C and `os.date` converts
/// in C: each is charged by the work it does, as the other library functions that work in C are.
@Suite("Limits on sorting, printing and dates", .serialized)
struct ComparisonAndPrintLimitTests {
    static let budget = 1_000_000
    static let budgetExceeded = "instruction budget of 1000000 instructions exceeded"
    static let limited = LuaVM.Configuration(instructionBudget: budget)

    /// A table of 100,000 numbers in a scrambled order.
    static let numbers = "local t = {} for i = 1, 1e5 do t[i] = (i * 7919) % 100003 end "

    /// Each ran for minutes past a 5 s call time limit in `moonblade run` before the fix: the sort was
    /// charged up front only for a plain table without a comparison function, and never by what each
    /// comparison reads (two 8 MB strings of zero bytes: 50 ms a comparison, 60 s a sort of 200).
    static let sorts = [
        GuestStop(name: "a table with a metatable, in a loop", source: numbers + "setmetatable(t, {}) while true do table.sort(t) end", line: 1),
        GuestStop(name: "a C comparison function, in a loop", source: numbers + "while true do table.sort(t, math.ult) end", line: 1),
        GuestStop(name: "a C comparison function that finds all equal", source: numbers + "while true do table.sort(t, rawequal) end", line: 1),
        GuestStop(
            name: "long strings of zero bytes, in one call",
            source: "local z = ('\\0'):rep(8e6) local t = {} for i = 1, 200 do t[i] = z end table.sort(t)", line: 1),
        GuestStop(
            name: "long strings sharing a long prefix, with a C comparison function",
            source: "local z = ('x'):rep(8e6) local t = {} for i = 1, 200 do t[i] = z end table.sort(t, rawequal)", line: 1),
    ]

    @Test(arguments: sorts)
    func theBudgetStopsASortThatComparesInC(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }

    /// Without a budget, the clock is checked between comparisons: a single sort of long strings
    /// stops at the time limit, not when it is done.
    @Test func theCallTimeLimitStopsASortInTheMiddle() async throws {
        try await Self.sorts[3].expectStopped(
            with: .init(instructionBudget: nil, callTimeLimit: .milliseconds(300)), kind: .limit,
            says: "time limit of 0.3 s exceeded")
    }

    /// The comparisons keep Lua's results and errors, with or without a function, for any table.
    @Test func sortingKeepsLuasOrderAndErrors() throws {
        let vm = try LuaVM(configuration: Self.limited)
        #expect(try vm.run("local t = {3, 1, 2} table.sort(t) return t[1], t[2], t[3]") == [1, 2, 3])
        #expect(try vm.run("local t = setmetatable({'b', 'c', 'a'}, {}) table.sort(t) return t[1], t[3]") == ["a", "c"])
        #expect(try vm.run("local t = {3, -1, 2} table.sort(t, math.ult) return t[1], t[3]") == [2, -1])
        #expect(try vm.run("local t = {'a\\0c', 'a\\0b', 'a'} table.sort(t) return t[1], t[2], t[3]") == ["a", "a\0b", "a\0c"])
        let mt = "local mt = { __lt = function(a, b) return a.v < b.v end } "
        #expect(try vm.run(mt + "local t = {} for i = 1, 50 do t[i] = setmetatable({ v = -i }, mt) end table.sort(t) return t[1].v") == [-50])
        // Work the budget allows: 20,000 numbers, and 200 strings that differ early.
        #expect(try vm.run("local t = {} for i = 1, 20000 do t[i] = -i end table.sort(t) return t[1]") == [-20000])
        #expect(try vm.run("local t = {} for i = 1, 200 do t[i] = i .. ('x'):rep(1e4) end table.sort(t) return t[1]:sub(1, 4)") == ["100x"])
        let mixed = expectLuaError { _ = try vm.run("local t = {1, 'x', 2} table.sort(t)", chunkName: "mixed.lua") }
        #expect(mixed?.message.contains("attempt to compare") == true, "\(String(describing: mixed))")
        let notAFunction = expectLuaError { _ = try vm.run("table.sort({2, 1}, 42)", chunkName: "arg.lua") }
        #expect(notAFunction?.message.contains("bad argument #2") == true, "\(String(describing: notAFunction))")
        let unlimited = try LuaVM()
        #expect(try unlimited.run(Self.numbers + "table.sort(t, math.ult) return t[1], t[100000]") == [1, 100_002])
    }

    /// A sort by `<` of plain numbers or short strings, small enough to take milliseconds, is charged
    /// up front and then left to Lua's own comparisons (one C call fewer each, three times as fast):
    /// one the budget cannot pay for fails before it touches the table, and a loop of them stops.
    @Test func aSmallSortOfPlainValuesIsChargedBeforeItStarts() async throws {
        let vm = try LuaVM(configuration: Self.limited)
        // Descending: the first comparison of Lua's sort would swap the first and last values.
        let descending = "T = {} for i = 1, 60000 do T[i] = 60001 - i end "
        let refused = expectLuaError { _ = try vm.run(descending + "table.sort(T)", chunkName: "sort.lua") }
        #expect(refused?.kind == .limit && refused?.message.contains(Self.budgetExceeded) == true, "\(String(describing: refused))")
        #expect(try vm.run("return T[1], T[60000]") == [60000, 1])
        #expect(try vm.run("T = {} for i = 1, 30000 do T[i] = 30001 - i end table.sort(T) return T[1], T[30000]") == [1, 30000])
        #expect(try vm.run("T = {} for i = 1, 20000 do T[i] = tostring(-i) end table.sort(T) return T[1]") == ["-1"])
        let loops = [
            GuestStop(name: "numbers", source: "local t = {} for i = 1, 100 do t[i] = -i end while true do table.sort(t) end", line: 1),
            GuestStop(
                name: "short strings", source: "local t = {} for i = 1, 100 do t[i] = ('\\0'):rep(64) end while true do table.sort(t) end", line: 1),
        ]
        for loop in loops {
            try await loop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded, within: .seconds(1))
        }
    }

    /// Lua compares strings a zero-terminated piece at a time, 50 times slower per byte than plain text:
    /// a shared prefix of zero bytes is charged for it, one of text by its bytes.
    @Test func zeroBytesCostWhatLuaSpendsOnThem() async throws {
        let vm = try LuaVM(configuration: Self.limited)
        #expect(try vm.run("local s = ('x'):rep(1 << 20) local t = { s, s, s } table.sort(t) return #t[1]") == [.integer(1 << 20)])
        let zeros = GuestStop(
            name: "zero bytes", source: "local s = ('\\0'):rep(1 << 20) local t = { s, s, s } table.sort(t)", line: 1)
        try await zeros.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }

    /// `os.date` hands each conversion of its format to `strftime`, 50 times what a byte of plain text
    /// costs: 100,000 of them (a 200 KB format, charged 200,000 steps by its bytes) are charged for each.
    @Test func dateConversionsAreChargedEach() async throws {
        let vm = try LuaVM(configuration: Self.limited)
        #expect(try vm.run("return #os.date(('x'):rep(2e5)), #os.date(('%Y'):rep(1000))") == [200_000, 4000])
        let conversions = GuestStop(name: "os.date", source: "local s = os.date(('%%'):rep(1e5))", line: 1)
        try await conversions.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }

    /// `print` writes its arguments out in C: a string larger than the budget allows is refused before
    /// anything is written (it was written whole, and a loop of such prints ran on between hooks).
    /// What a `__tostring` returns counts too: a few instructions may hand over megabytes.
    @Test(arguments: [
        GuestStop(name: "a string", source: "local s = ('x'):rep(1e7)\nprint(s)", line: 2),
        GuestStop(
            name: "an object whose __tostring returns a string",
            source: "local s = ('x'):rep(1e7)\nprint(setmetatable({}, { __tostring = function() return s end }))", line: 2),
    ])
    func printingMoreThanTheBudgetAllowsIsRefused(_ stop: GuestStop) async throws {
        try await stop.expectStopped(with: Self.limited, kind: .limit, says: Self.budgetExceeded)
    }
}
