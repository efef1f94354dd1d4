import MoonbladeHost
import Testing

@Suite("Dispatching and settling")
struct DispatchAndSettleTests {
    /// `chain.start` sets off, through an observer rule, a side effect that awaits Swift work and then
    /// dispatches `chain.bump`.
    let chain = """
        return {
          name = "chain",
          updaters = {
            start = function(state) end,
            bump = function(state) state.counter = state.counter + 1 end,
            fail = function(state) error("refused") end,
          },
          side_effects = {
            later = function(ctx)
              ctx.deps.wait.briefly {}
              ctx.dispatch("chain.bump")
            end,
            answer = function(ctx) return { n = 42 } end,
            nothing = function(ctx) end,
          },
          observers = { { on_dispatch = "chain.start", dispatch = { "chain.later" } } },
        }
        """

    func host() throws -> (PluginHost<AppState>, ScratchPlugins) {
        let scratch = ScratchPlugins()
        var dependencies = PluginDependencies()
        dependencies.expose("wait", "briefly") { (_: JSONValue) async throws in
            try await Task.sleep(for: .milliseconds(20))
        }
        let host = try PluginHost<AppState>(
            plugins: [try scratch.write("chain", chain)], dependencies: dependencies)
        #expect(host.loadErrors.isEmpty)
        return (host, scratch)
    }

    @Test func returnsOnceEverythingTheItemSetOffIsDone() async throws {
        let (host, _) = try host()
        #expect(try await host.dispatchAndSettle("chain.start") == Optional<JSONValue>.none)
        #expect(host.state.counter == 1)
    }

    @Test func returnsWhatASideEffectReturnsAndNilForNothing() async throws {
        let (host, _) = try host()
        #expect(try await host.dispatchAndSettle("chain.answer") == ["n": 42])
        // Not `== nil`: JSONValue is ExpressibleByNilLiteral, so that could compare with JSON null.
        #expect(try await host.dispatchAndSettle("chain.nothing") == Optional<JSONValue>.none)
    }

    @Test func anUnknownNameIsAnUnknownItem() async throws {
        let (host, _) = try host()
        await #expect {
            try await host.dispatchAndSettle("chain.nope", ["by": 1])
        } throws: { error in
            (error as? PluginError)?.kind == .unknownItem
        }
    }

    @Test func anItemErrorReachesTheCaller() async throws {
        let (host, _) = try host()
        await #expect {
            try await host.dispatchAndSettle("chain.fail")
        } throws: { error in
            "\(error)".contains("chain/plugin.lua:6: refused")
        }
    }
}
