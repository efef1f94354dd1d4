import Moonblade
import MoonbladeHost
import Testing

/// Observer rules written carelessly: each failure is reported with the rule, plugin and `file:line`,
/// the other rules still fire, and the store keeps serving.
@Suite("Lua observer rules: a hostile corpus")
struct HostileObserverTests {
    let scratch = ScratchPlugins()
    let log = RecordingLogHandler.Log()

    func host(_ plugins: [String], counter: Int = 0) throws -> PluginHost<AppState> {
        let host = try PluginHost<AppState>(
            plugins: plugins, initialState: AppState(counter: counter),
            configuration: .init(instructionBudget: 200_000, logger: log.logger))
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    /// A plugin `trace` whose updater `mark` appends its payload's `tag` to the todos' titles, so the
    /// order rules fire in shows in the state.
    func tracePlugin(_ observers: String) throws -> String {
        try scratch.write(
            "trace",
            """
            return {
              name = "trace",
              updaters = {
                mark = function(state, p) state.todos[#state.todos + 1] = { title = p.tag, done = false } end,
              },
              observers = {
            \(observers)
              },
            }
            """)
    }

    @Test func rulesFireInLoadOrderThenListOrderAfterTheItem() async throws {
        let second = try listPlugin(
            scratch, "second", "observers",
            """
            { on_dispatch = "counter.increment", dispatch = { { "trace.mark", { tag = "second.1" } } } },
            """)
        let trace = try tracePlugin(
            """
            { on_dispatch = "counter.increment", dispatch = { { "trace.mark", { tag = "trace.1a" } }, { "trace.mark", { tag = "trace.1b" } } } },
            { on_state_change = function(old, new) return old.counter ~= new.counter end, dispatch = { { "trace.mark", { tag = "trace.2" } } } },
            """)
        let host = try host([shippedPlugin("counter"), trace, second])
        try await host.dispatch("counter.increment").value
        await host.store.waitUntilIdle()
        #expect(host.state.todos.map(\.title) == ["trace.1a", "trace.1b", "trace.2", "second.1"])
    }

    /// As with `ObserverInterceptor`, the predicate is asked after every updater, one that wrote the
    /// values already there too: comparing is the predicate's work.
    @Test func onStateChangeIsAskedAfterEveryUpdaterAndItsAnswerDecides() async throws {
        let trace = try tracePlugin(
            """
            { on_state_change = function(old, new) asked = (rawget(_G, "asked") or 0) + 1; return old.counter ~= new.counter end,
              dispatch = { { "trace.mark", function() return { tag = "asked " .. asked } end } } },
            """)
        let host = try host([shippedPlugin("counter"), trace], counter: 4)
        try await host.dispatch("counter.increment", ["by": 0]).value
        await host.store.waitUntilIdle()
        #expect(host.state.todos.isEmpty)
        try await host.dispatch("counter.increment", ["by": 1]).value
        await host.store.waitUntilIdle()
        // Asked after the first increment, the second, then its own mark (which it let pass).
        #expect(host.state.todos.map(\.title) == ["asked 2"])
        try await host.dispatch("counter.reset").value
        await host.store.waitUntilIdle()
        #expect(host.state.todos.map(\.title) == ["asked 2", "asked 4"])
        #expect(log.lines.isEmpty, "\(log.lines)")
    }

    /// A rule whose predicate or payload fails, or that dispatches something unusable, is reported
    /// with the rule each time it fails; the other rule still fires and the store keeps serving.
    @Test(arguments: [
        ("on_state_change = function(old, new) return new.nothing.here end, dispatch = { \"trace.mark\" }", "attempt to index a nil value"),
        ("on_state_change = function(old, new) while true do end end, dispatch = { \"trace.mark\" }", "instruction"),
        ("on_state_change = function(old, new) coroutine.yield() end, dispatch = { \"trace.mark\" }", "yield"),
        ("on_state_change = function(old, new) new.counter = 99; return true end, dispatch = { \"trace.mark\" }", "read-only"),
        ("on_state_change = function(old, new) error({}) end, dispatch = { \"trace.mark\" }", "error object is a table value"),
        ("on_dispatch = \"counter.increment\", dispatch = { { \"trace.mark\", function() return print end } }", "function"),
        ("on_dispatch = \"counter.increment\", dispatch = { { \"trace.mark\", function() local t = {}; t.t = t; return t end } }", "contains itself"),
        ("on_dispatch = \"counter.increment\", dispatch = { { \"trace.mark\", { tag = 42 } } }", "expected String"),
        ("on_dispatch = \"counter.increment\", dispatch = { \"nope.nothing\" }", "nope.nothing"),
        ("on_dispatch = \"counter.increment\", dispatch = { \"trace\" }", "trace"),
    ])
    func aFailingRuleIsReportedWithItsPlaceAndTheOthersStillFire(rule: String, saying: String) async throws {
        let trace = try tracePlugin(
            """
            { \(rule) },
            { on_dispatch = "counter.increment", dispatch = { { "trace.mark", { tag = "good" } } } },
            """)
        let host = try host([shippedPlugin("counter"), trace])
        try await host.dispatch("counter.increment").value
        await host.store.waitUntilIdle()
        await waitUntil { !log.lines.isEmpty }
        #expect(host.state.counter == 1)
        #expect(host.state.todos.map(\.title) == ["good"])
        // An on_state_change rule is asked again after the good rule's mark, and reported again.
        let reports = log.lines
        #expect(reports.allSatisfy { $0.contains("trace.observers[1]") && $0.contains(saying) }, "\(reports)")
        if rule.hasPrefix("on_state_change") {
            #expect(reports.allSatisfy { $0.contains("trace/plugin.lua:7: on_state_change: ") }, "\(reports)")
        }
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
    }

    @Test func aRuleWatchingAnItemThatDoesNotExistNeverFiresAndHarmsNothing() async throws {
        let trace = try tracePlugin(
            """
            { on_dispatch = "nope.nothing", dispatch = { { "trace.mark", { tag = "never" } } } },
            { on_dispatch = "counter", dispatch = { { "trace.mark", { tag = "never" } } } },
            { on_notification = "", dispatch = { { "trace.mark", { tag = "empty name" } } } },
            """)
        let host = try host([shippedPlugin("counter"), trace])
        try await host.dispatch("counter.increment").value
        host.post("nope.nothing")
        host.post("counter")
        await host.store.waitUntilIdle()
        #expect(host.state.todos.isEmpty)
        host.post("")
        await host.store.waitUntilIdle()
        #expect(host.state.todos.map(\.title) == ["empty name"])
        #expect(log.lines.isEmpty)
    }

    @Test func aReloadWhileRulesAreFiringSwapsThemBetweenDispatches() async throws {
        let trace = try tracePlugin(
            """
            { on_dispatch = "counter.increment", dispatch = { { "trace.mark", { tag = "old" } } } },
            """)
        let host = try host([shippedPlugin("counter"), trace])
        async let dispatching: Void = {
            for _ in 0..<20 { try await host.dispatch("counter.increment").value }
        }()
        _ = try tracePlugin(
            """
            { on_dispatch = "counter.increment", dispatch = { { "trace.mark", { tag = "new" } } } },
            """)
        _ = try await host.reload(plugin: "trace")
        try await dispatching
        await host.store.waitUntilIdle()
        // Each increment set off exactly one mark, old code's before the swap and new code's after.
        let tags = host.state.todos.map(\.title)
        #expect(host.state.counter == 20)
        #expect(tags.count == 20)
        #expect(tags == tags.filter { $0 == "old" } + tags.filter { $0 == "new" })
        try await host.dispatch("counter.increment").value
        await host.store.waitUntilIdle()
        #expect(host.state.todos.last?.title == "new")
    }
}
