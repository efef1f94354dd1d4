import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// A memory-limit failure fails the whole guest call, as the budget does: no `pcall`, `xpcall` or
/// coroutine can swallow it and go on allocating.
@Suite("Memory limit")
struct MemoryLimitTests {
    static let limit = 16 << 20
    static let exceeded = "memory limit of 16777216 bytes exceeded"

    static let swallowed = [
        GuestStop(name: "pcall in a loop", source: "while true do pcall(string.rep, 'x', 1 << 30) end", line: 1),
        GuestStop(
            name: "pcall of a function that fills a table",
            source: "local ok = pcall(function()\n  local t = {} for i = 1, 1e9 do t[i] = i end\nend)\nwhile true do end",
            line: 1),
        GuestStop(
            name: "xpcall with a handler that allocates",
            source: "while true do\n  xpcall(string.rep, function(e) return ('y'):rep(100) end, 'x', 1 << 30)\nend", line: 2),
        GuestStop(
            name: "coroutine.resume in a loop",
            source:
                "while true do\n  local co = coroutine.create(function() return ('x'):rep(1 << 30) end)\n  coroutine.resume(co)\nend",
            line: 3),
        GuestStop(
            name: "coroutine.wrap inside pcall",
            source: "while true do\n  pcall(coroutine.wrap(function() local s = ('x'):rep(1 << 30) end))\nend", line: 2),
        GuestStop(
            name: "load of a huge chunk",
            source: "local big = 'return ' .. ('a+'):rep(1 << 20) .. 'a'\nwhile true do\n  local f = load(big)\nend",
            line: 3),
        GuestStop(
            name: "string building caught and retried",
            source: "local s = 'x'\nwhile true do\n  local ok = pcall(function() s = s .. s end)\nend", line: 3),
        GuestStop(
            name: "pcall of table.concat",
            source: "local t = {} for i = 1, 10 do t[i] = ('x'):rep(1 << 20) end\nwhile true do pcall(table.concat, t) end",
            line: 2),
    ]

    @Test(arguments: swallowed)
    func aMemoryErrorEndsTheCallAtOnce(_ stop: GuestStop) async throws {
        // No budget and no time limit: only the memory limit can stop these.
        try await stop.expectStopped(with: .init(memoryLimit: Self.limit), kind: .memory, says: Self.exceeded)
    }

    /// Near the limit, Lua collects all garbage before each allocation that would pass it; a call
    /// whose live data fills the limit is stopped once such a collection frees too little, instead of
    /// collecting again every few allocations (5 s for 64 MiB in plain Lua, minutes on larger limits).
    /// Counted in collections, not seconds, so that a slow machine cannot fail it.
    @Test func growingATableUntilTheLimitEndsAfterFewCollections() async throws {
        // Long synchronous work in slow builds: off the cooperative pool.
        let (error, collections, next) = try await onOwnThread { () throws -> (LuaError?, Int, [LuaValue]) in
            let vm = try LuaVM(configuration: .init(memoryLimit: 16 << 20))
            let (error, collections) = EmergencyCollections.count(on: vm) { () -> LuaError? in
                do {
                    try vm.run("local t = {}\nfor i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end", chunkName: "grow.lua")
                    return nil
                } catch {
                    return error as? LuaError
                }
            }
            return (error, collections, try vm.run("return #('x'):rep(1000)"))
        }
        // It takes 2: one that frees the loop's garbage, one that frees too little and stops the call.
        // Were any collection that frees something to let the call go on, it would take 20 (and on a
        // larger limit, thousands).
        #expect((1...6).contains(collections), "\(collections) emergency collections")
        #expect(error?.kind == .memory)
        #expect(error?.message == "grow.lua:2: memory limit of 16777216 bytes exceeded")
        #expect(error?.location == LuaLocation(source: "grow.lua", line: 2))
        #expect(next == [1000])
    }

    @Test func aCallUnderTheLimitAfterAStoppedOneRunsNormally() throws {
        let vm = try LuaVM(configuration: .init(memoryLimit: Self.limit))
        _ = expectLuaError { _ = try vm.run("pcall(string.rep, 'x', 1 << 30)\nreturn 'went on'") }
        // A fresh call starts with nothing refused, and may catch its own (non-memory) errors.
        #expect(try vm.run("local ok, e = pcall(error, 'x', 0) return ok, e, #('y'):rep(1 << 20)") == [false, "x", .integer(1 << 20)])
    }
}
