import MoonbladeLua
import Testing

/// The allocator keeps Lua's freed small blocks for reuse (`Limits/block_pool.c`): what Lua stores
/// survives blocks moving between size classes, and the memory limit counts what Lua holds, not what
/// is kept for reuse.
@Suite("Reusing Lua's small blocks")
struct BlockPoolTests {
    @Test func valuesSurviveBlocksGrowingAndShrinkingAcrossSizeClasses() throws {
        let vm = try LuaVM()
        let results = try vm.run(
            """
            local t, sums = {}, {}
            for round = 1, 3 do
              for i = 1, 300 do t[i] = i; t["k" .. i] = i end        -- array and hash parts regrow
              local sum = 0
              for i = 1, 300 do sum = sum + t[i] + t["k" .. i] end
              sums[#sums + 1] = sum
              for i = 300, 2, -1 do t[i] = nil; t["k" .. i] = nil end
              collectgarbage()                                       -- shrinks them back to small blocks
            end
            local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
            local co = coroutine.wrap(function() coroutine.yield(depth(500)); return depth(3) end)
            return sums[1], sums[2], sums[3], t[1], t.k1, co(), co()                 -- a stack grown and shrunk
            """)
        #expect(results == [.integer(90_300), .integer(90_300), .integer(90_300), .integer(1), .integer(1), .integer(500), .integer(3)])
    }

    @Test func theMemoryLimitCountsWhatLuaHoldsNotWhatIsKeptForReuse() throws {
        // Far more small blocks made and dropped than the limit allows at once.
        let vm = try LuaVM(configuration: .init(memoryLimit: 2 << 20))
        let results = try vm.run(
            """
            local before = collectgarbage("count")
            for i = 1, 200000 do local t = { i, { i } } end
            collectgarbage(); collectgarbage()
            return collectgarbage("count") - before < 64
            """)
        #expect(results == [.boolean(true)])
    }
}
