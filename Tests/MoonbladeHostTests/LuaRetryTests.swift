import Moonblade
import MoonbladeHost
import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// A plugin whose `flaky` side effect fails until its `attempts` counter reaches `p.succeed_at`, and
/// whose `bump` updater fails on a payload flag; `retry` and the option checks call them from Lua.
private let flakySource = """
    local attempts = 0
    return {
      updaters = {
        bump = function(state, p)
          attempts = attempts + 1
          if attempts < p.succeed_at then error("bump attempt " .. attempts) end
          state.counter = state.counter + 1
        end,
      },
      side_effects = {
        flaky = function(ctx, p)
          attempts = attempts + 1
          if attempts < p.succeed_at then error("attempt " .. attempts) end
          ctx.dispatch("flaky.record", { attempt = attempts })
          return attempts
        end,
        record = function(ctx, p) end,
        retry = function(ctx, p)
          return ctx.dispatch(p.item, { succeed_at = p.succeed_at }, { retries = p.retries, delay = 0.001 })
        end,
        options = function(ctx, p)
          return ctx.dispatch("flaky.flaky", { succeed_at = 1 }, p.options) -- line 21
        end,
        bad_options = function(ctx, p)
          return ctx.dispatch("flaky.flaky", { succeed_at = 1 }, 5) -- line 24
        end,
      },
    }
    """

private struct RetryRequest: Encodable, Sendable {
    var item = "flaky.flaky"
    var succeed_at: Int
    var retries: Int
}

@Suite("Lua retries", .hangGuard)
struct LuaRetryTests {
    @Test func luaRetriesASideEffectAndGetsTheValueOfTheAttemptThatSucceeded() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", flakySource)])
        #expect(try await host.dispatch("flaky.retry", RetryRequest(succeed_at: 3, retries: 2), returning: Int.self).value == 3)
    }

    @Test func luaRetriesAnUpdaterThatFailsAndItIsAppliedOnce() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", flakySource)])
        try await host.dispatch("flaky.retry", RetryRequest(item: "flaky.bump", succeed_at: 2, retries: 1)).value
        #expect(host.state.counter == 1)
    }

    @Test func whenLuaRetriesRunOutTheLastAttemptsErrorReachesTheSideEffect() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", flakySource)])
        let error = await #expect(throws: PluginError.self) {
            try await host.dispatch("flaky.retry", RetryRequest(succeed_at: 9, retries: 2)).value
        }
        #expect(error?.description.contains("attempt 3") == true, "\(error.map(String.init(describing:)) ?? "")")
    }

    @Test func hostDispatchByNameRetries() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", flakySource)])
        #expect(try await host.dispatch("flaky.flaky", ["succeed_at": 2], returning: Int.self, retries: 1).value == 2)
        try await host.dispatch("flaky.bump", ["succeed_at": 4], retries: 1).value
        #expect(host.state.counter == 1)
        await #expect(throws: PluginError.self) { try await host.dispatch("flaky.bump", ["succeed_at": 9]).value }
    }

    @Test(arguments: [
        ("{ retries = -1 }", "options.retries must be a non-negative integer, found integer -1"),
        ("{ retries = 1.5 }", "options.retries must be a non-negative integer, found number 1.5"),
        ("{ retries = \"2\" }", "options.retries must be a non-negative integer, found string \"2\""),
        ("{ delay = -1 }", "options.delay must be a non-negative number of seconds, found integer -1"),
        ("{ delay = 1/0 }", "options.delay must be a non-negative number of seconds"),
    ])
    func badRetryOptionsFailAtTheLineThatPassedThem(options: String, says: String) async throws {
        let scratch = ScratchPlugins()
        let source = flakySource.replacingOccurrences(of: "p.options) -- line 21", with: "\(options)) -- line 21")
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", source)])
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("flaky.options").value }
        #expect(error?.plugin == "flaky")
        #expect(error?.location == LuaLocation(source: "flaky/plugin.lua", line: 21))
        #expect(error?.description.contains(says) == true, "\(error.map(String.init(describing:)) ?? "")")
        #expect(host.state == AppState())
    }

    @Test func optionsThatAreNotATableFail() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try scratch.write("flaky", flakySource)])
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("flaky.bad_options").value }
        #expect(error?.location == LuaLocation(source: "flaky/plugin.lua", line: 24))
        #expect(error?.description.contains("the options must be a table, got a number") == true, "\(error.map(String.init(describing:)) ?? "")")
    }
}
