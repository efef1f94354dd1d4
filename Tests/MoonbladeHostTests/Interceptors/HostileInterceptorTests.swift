import Moonblade
import MoonbladeHost
import Testing

/// Lua interceptors written carelessly or with intent: each failure names the plugin, the item and
/// the interceptor's `file:line`, leaves the state as it was, and the next dispatch runs.
@Suite("Lua interceptors: a hostile corpus")
struct HostileInterceptorTests {
    let scratch = ScratchPlugins()

    /// A host with the counter plugin and one interceptor plugin `bad` whose list is `interceptor`
    /// (its function starts on line 4), and a budget small enough for runaway loops.
    func host(_ interceptor: String, counter: Int = 0) throws -> PluginHost<AppState> {
        let plugin = try listPlugin(scratch, "bad", "interceptors", interceptor)
        let host = try PluginHost<AppState>(
            plugins: [shippedPlugin("counter"), plugin], initialState: AppState(counter: counter),
            configuration: .init(instructionBudget: 200_000))
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    /// Dispatches `counter.increment` expecting a `PluginError` of `kind` at `bad/plugin.lua:line`,
    /// then checks the state is untouched and that a dispatch skipping the trap still runs.
    func expectRefused(
        _ host: PluginHost<AppState>, kind: PluginError.Kind, line: Int, saying: String,
        payload: [String: Int] = ["by": 1], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        let before = host.state
        let error = try await #require(throws: PluginError.self, sourceLocation: sourceLocation) {
            try await host.dispatch("counter.increment", payload).value
        }
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.plugin == "bad", "\(error)", sourceLocation: sourceLocation)
        #expect(error.item == "counter.increment", "\(error)", sourceLocation: sourceLocation)
        #expect(error.location?.description == "bad/plugin.lua:\(line)", "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains(saying), "\(error)", sourceLocation: sourceLocation)
        #expect(host.state == before, sourceLocation: sourceLocation)
        #expect(changes.count == 0, sourceLocation: sourceLocation)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0, sourceLocation: sourceLocation)
    }

    /// Loops (caught by `pcall` or not) and yields in an interceptor are stopped at their line.
    @Test(arguments: [
        ("while true do end", PluginError.Kind.limit, "instruction"),
        ("while true do pcall(function() while true do end end) end", .limit, "instruction"),
        ("coroutine.yield()", .runtime, "yield"),
    ])
    func aTrapInTheInterceptorIsStoppedAtItsLine(trap: String, kind: PluginError.Kind, saying: String) async throws {
        let host = try host(
            """
            function(item, next)
              if item.name == "counter.increment" then \(trap) end
              next(item)
            end,
            """, counter: 3)
        try await expectRefused(host, kind: kind, line: 5, saying: saying)
    }

    @Test(arguments: [
        ("next(42)", PluginError.Kind.runtime, "next expects the item table, got a number"),
        ("next('counter.reset')", .runtime, "got a string"), ("next({ name = 42 })", .runtime, "name"),
        // An unknown name is what it is when Swift dispatches it, still at the interceptor's line.
        ("next({ name = 'nope.nothing' })", .unknownItem, "bad/plugin.lua:5: next: no item named nope.nothing is registered"),
        ("next({ name = 'counter.increment', payload = { by = print } })", .runtime, "function"),
    ])
    func nextWithSomethingThatIsNoItemIsAnErrorAtItsLine(call: String, kind: PluginError.Kind, saying: String) async throws {
        let host = try host(
            """
            function(item, next)
              if item.name == "counter.increment" then \(call) else next(item) end
            end,
            """)
        try await expectRefused(host, kind: kind, line: 5, saying: saying)
    }

    @Test func aPayloadThatContainsItselfIsAnErrorAtTheInterceptorsLine() async throws {
        let host = try host(
            """
            function(item, next)
              if item.name == "counter.increment" then
                local p = { by = 1 }; p.self = p
                next({ name = "counter.increment", payload = p })
              else next(item) end
            end,
            """)
        try await expectRefused(host, kind: .runtime, line: 7, saying: "a table contains itself")
    }

    @Test(arguments: ["return 42", "return function() end", "return nil, 'why'", "return item", "return next"])
    func whatAnInterceptorReturnsIsIgnoredAndWithoutNextTheItemIsDropped(ending: String) async throws {
        let host = try host(
            """
            function(item, next)
              if item.name == "counter.increment" then \(ending) end
              next(item)
            end,
            """, counter: 2)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 2)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
    }

    @Test func aNextKeptFromAnEarlierDispatchIsAnErrorWhenCalledLater() async throws {
        let host = try host(
            """
            function(item, next)
              if item.name == "counter.reset" then kept = next; return next(item) end
              kept(item)
            end,
            """, counter: 5)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
        try await expectRefused(host, kind: .runtime, line: 6, saying: "next")
    }

    @Test func errorObjectsThatAreNotStringsStillNameThePlugin() async throws {
        for raise in ["error({ code = 7 })", "error(nil)", "error(setmetatable({}, { __tostring = function() return 'custom' end }))"] {
            let host = try host(
                """
                function(item, next)
                  if item.name == "counter.increment" then \(raise) end
                  next(item)
                end,
                """)
            try await expectRefused(host, kind: .runtime, line: 5, saying: "counter.increment: bad/plugin.lua:5: ")
        }
    }

    /// An interceptor that catches its updater's error cannot keep what the updater wrote before it
    /// raised: the dispatch is one transaction either way.
    @Test func anUpdatersErrorCaughtByAnInterceptorLeavesNoHalfWrittenState() async throws {
        let half = try scratch.write(
            "half",
            """
            return {
              name = "half",
              updaters = {
                bump_then_fail = function(state) state.counter = state.counter + 100; error("failed after writing") end,
              },
              interceptors = { function(item, next) local ok = pcall(next, item) end },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), half], initialState: AppState(counter: 1))
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        do { try await host.dispatch("half.bump_then_fail").value } catch {}
        #expect(host.state.counter == 1)
        #expect(changes.count == 0)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 2)
    }

    @Test func aBudgetSpentInsideNextCannotBeCaughtByTheInterceptor() async throws {
        let spin = try scratch.write(
            "spin",
            """
            return {
              name = "spin",
              updaters = { forever = function(state) state.counter = 7; while true do end end },
              interceptors = { function(item, next) pcall(next, item); pcall(next, item) end },
            }
            """)
        let host = try PluginHost<AppState>(
            plugins: [shippedPlugin("counter"), spin], configuration: .init(instructionBudget: 200_000))
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("spin.forever").value }
        #expect(error.kind == .limit, "\(error)")
        #expect(error.plugin == "spin", "\(error)")
        #expect(host.state.counter == 0)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 1)
    }
}
