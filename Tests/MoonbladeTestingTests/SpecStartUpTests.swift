import MoonbladeTesting
import Testing

/// A spec case starts from a settled store: what the plugin's `on_start` rules set off is done before
/// the case's first `dispatch`, `state()` or `set_state`, as `moonblade run` waits for it.
@Suite struct SpecStartUpTests {
    /// A bank whose `on_start` load awaits its stub many times before it sets the balance, so a case
    /// that did not wait would see the store before the load (or have its own work overwritten by it).
    static let bank = """
        return {
          name = "bank",
          updaters = {
            set = function(state, p) state.balance = p.balance end,
            deposit = function(state, p) state.balance = (state.balance or 0) + p.amount end,
          },
          side_effects = {
            load = function(ctx)
              local balance
              for _ = 1, 30 do balance = ctx.deps.ledger.balance() end
              ctx.dispatch("bank.set", { balance = balance })
            end,
          },
          observers = { { on_start = { "bank.load" } } },
        }
        """

    static func failure(of body: String) async throws -> LuaSpecFailure? {
        let sandbox = try SpecSandbox(
            spec: """
                it("starts settled", function()
                  stub("ledger.balance", function() return 42 end)
                \(body)
                end)
                """, plugin: bank)
        return try await sandbox.failure()
    }

    @Test(arguments: 1...5) func theFirstDispatchComesAfterTheStartUpLoad(_ round: Int) async throws {
        let failure = try await Self.failure(of: """
              dispatch("bank.deposit", { amount = 1 })
              assert.are.same(43, state().balance)
            """)
        #expect(failure == nil, "round \(round): \(failure?.message ?? "")")
    }

    @Test(arguments: 1...5) func theFirstStateReadSeesTheStartUpLoad(_ round: Int) async throws {
        let failure = try await Self.failure(of: "  assert.are.same({ balance = 42 }, state())")
        #expect(failure == nil, "round \(round): \(failure?.message ?? "")")
    }

    @Test(arguments: 1...5) func setStateOnAStartedStoreIsNotOverwrittenByTheStartUpLoad(_ round: Int) async throws {
        let failure = try await Self.failure(of: """
              dispatch("bank.deposit", { amount = 0 })
              set_state({ balance = 7 })
              assert.are.same({ balance = 7 }, state())
            """)
        #expect(failure == nil, "round \(round): \(failure?.message ?? "")")
    }

    @Test func aFailingStartUpDoesNotHangTheCase() async throws {
        // The load's stub fails: the start-up ends (its error goes to the log) and the case goes on.
        let sandbox = try SpecSandbox(
            spec: """
                it("goes on", function()
                  stub("ledger.balance", function() error("ledger offline") end)
                  dispatch("bank.deposit", { amount = 5 })
                  assert.are.same({ balance = 5 }, state())
                end)
                """, plugin: Self.bank)
        #expect(try await sandbox.failure() == nil)
    }
}
