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
        let failure = try await Self.failure(
            of: """
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
        let failure = try await Self.failure(
            of: """
                  dispatch("bank.deposit", { amount = 0 })
                  set_state({ balance = 7 })
                  assert.are.same({ balance = 7 }, state())
                """)
        #expect(failure == nil, "round \(round): \(failure?.message ?? "")")
    }

    /// A failing start-up fails the case at its first look at the store, with the item's message and
    /// place: it was silent, and the case failed later on a state that was never loaded (`actual: {}`).
    /// (`set_state` before the store starts only gives its initial state: the first look is the next line.)
    @Test(arguments: [("dispatch(\"bank.deposit\", { amount = 5 })", 3), ("state()", 3), ("set_state({ balance = 1 })", 4)])
    func aFailingStartUpFailsTheCaseWithItsMessage(_ firstLook: String, line: Int) async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("goes on", function()
                  stub("ledger.balance", function() error("ledger offline") end)
                  \(firstLook)
                  assert.are.same({ balance = 5 }, state())
                end)
                """, plugin: Self.bank)
        let failure = try await sandbox.failure()
        #expect(failure?.line == line, "\(String(describing: failure))")
        #expect(failure?.message.contains("bank.load, dispatched by bank.observers[1], failed") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("ledger offline") == true)
        #expect(failure?.message.contains("shop/plugin.lua:") == true)
    }

    /// Without a stub, the plugin's `ctx.deps.storage`, `clock` and `log` are the standard ones, and the
    /// spec reaches them: it seeds storage before the start-up load, sets the clock, reads the log.
    @Test func specsHaveTheStandardDependencies() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("uses storage, clock and log", function()
                  storage.write("shop", { count = 3 })
                  clock.set("2026-11-21T15:30:00Z")
                  dispatch("shop.stamp")
                  assert.are.same({ count = 3, at = "2026-11-21T15:30:00Z", seconds = 1795275000 }, state())
                  clock.advance(60)
                  dispatch("shop.stamp")
                  assert.are.same(1795275060, state().seconds)
                  assert.are.same({ count = 4 }, storage.read("shop"))
                  local entries = logs()
                  assert.are.same(2, #entries)
                  assert.are.same({ level = "info", message = "stamped", plugin = "shop", count = "3" }, entries[1])
                end)
                """,
            plugin: """
                return {
                  name = "shop",
                  updaters = {
                    loaded = function(state, p) state.count = p.count end,
                    stamped = function(state, p) state.at = p.at; state.seconds = p.seconds end,
                  },
                  side_effects = {
                    load = function(ctx) ctx.dispatch("shop.loaded", ctx.deps.storage.read { key = "shop" }) end,
                    stamp = function(ctx)
                      ctx.dispatch("shop.stamped", { at = ctx.deps.clock.iso8601(), seconds = math.floor(ctx.deps.clock.now()) })
                      ctx.deps.log.info { message = "stamped", count = ctx.state().count }
                      ctx.deps.storage.write { key = "shop", value = { count = ctx.state().count + 1 } }
                    end,
                  },
                  observers = { { on_start = { "shop.load" } } },
                }
                """)
        let failure = try await sandbox.failure()
        #expect(failure == nil, "\(String(describing: failure))")
    }
}
