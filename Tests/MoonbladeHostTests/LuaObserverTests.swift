import Moonblade
import MoonbladeHost
import Testing

/// A typed wrapper of `counter.increment`: Swift observer rules see Lua items through these.
struct Increment: LuaStateUpdater {
    static let luaItem = "counter.increment"
    var by = 1
}

/// A Swift item dispatched by a Swift observer rule when it sees `Increment`.
struct AddMarker: StateUpdater, DispatchObserverDispatchable {
    init?(dispatchedItem: any Dispatchable, prevState: any State, currentState: any State) {}
    func updateState(_ state: inout AppState) { state.todos.append(Todo(title: "marker")) }
}

/// A Swift updater a Lua rule observes, and a Swift side effect that dispatches it again.
struct Ping: StateUpdater, Codable {
    func updateState(_ state: inout AppState) { state.counter += 1 }
}

struct Pong: SideEffect, Codable {
    func sideEffect(_ context: SideEffectContext<AppState, PluginHostDependencies>) async throws {
        try await context.dispatch(Ping()).value
    }
}

@Suite("Lua observer rules")
struct LuaObserverTests {
    let scratch = ScratchPlugins()
    let log = RecordingLogHandler.Log()

    func host(_ plugins: [String], counter: Int = 0, maxCascadeDepth: Int = 32) throws -> PluginHost<AppState> {
        try PluginHost<AppState>(
            plugins: plugins, initialState: AppState(counter: counter),
            configuration: .init(maxCascadeDepth: maxCascadeDepth, logger: log.logger))
    }

    @Test func onStartItemsRunBeforeTheHostIsReturned() throws {
        let rules = try listPlugin(
            scratch, "boot", "observers",
            """
            { on_start = { "counter.increment", { "counter.increment", { by = 10 } } } },
            { on_start = true, dispatch = { "counter.increment" } },
            """)
        let host = try host([shippedPlugin("counter"), rules])
        #expect(host.state.counter == 12)
    }

    @Test func onDispatchFiresAfterTheItemEveryMatchingRuleAndEveryListedName() async throws {
        let rules = try listPlugin(
            scratch, "echo", "observers",
            """
            { on_dispatch = "counter.reset", dispatch = { "counter.increment", "counter.increment" } },
            { on_dispatch = "counter.reset", dispatch = { { "counter.increment", { by = 100 } } } },
            { on_dispatch = "counter.increment", dispatch = { "app.never" } },
            """)
        let host = try host([shippedPlugin("counter"), rules], counter: 7)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 102)
    }

    @Test func payloadFunctionsBuildThePayloadFromTheEvent() async throws {
        let rules = try listPlugin(
            scratch, "mirror", "observers",
            """
            { on_dispatch = "app.set", dispatch = { { "counter.increment", function(item, old, new)
                return { by = item.payload.value + old.counter + new.counter }
              end } } },
            """)
        let host = try host([shippedPlugin("counter"), rules], counter: 1)
        try host.register(SetCounter.self, as: "app.set")
        try await host.store.dispatch(SetCounter(value: 10)).value
        #expect(host.state.counter == 10 + (10 + 1 + 10))
    }

    @Test func aSwiftRuleObservesALuaItemThroughItsTypedFace() async throws {
        let host = try PluginHost<AppState>(
            plugins: [shippedPlugin("counter")],
            interceptors: [ObserverInterceptor.observe([.onDispatch(Increment.self, [AddMarker.self])])])
        try await host.store.dispatch(Increment(by: 2)).value
        #expect(host.state.counter == 2)
        #expect(host.state.todos == [Todo(title: "marker")])
    }

    @Test func onStateChangeAsksThePredicateAfterUpdatersOnly() async throws {
        let rules = try scratch.write(
            "threshold",
            """
            return {
              name = "threshold",
              updaters = {
                flag = function(state) table.insert(state.todos, { title = "over 10", done = false }) end,
                asked = function(state) table.insert(state.todos, { title = "asked", done = true }) end,
              },
              side_effects = { touch = function(ctx) end },
              observers = {
                { on_state_change = function(old, new) return old.counter <= 10 and new.counter > 10 end,
                  dispatch = { "threshold.flag" } },
                -- Always true, so every time it is asked leaves a mark.
                { on_state_change = function() return true end, dispatch = { "threshold.asked" } },
              },
            }
            """)
        // Depth 1: the rules' own updaters do not set them off again.
        let host = try host([shippedPlugin("counter"), rules], maxCascadeDepth: 1)
        try await host.dispatch("counter.increment", ["by": 11]).value
        let afterUpdater = host.state.todos
        #expect(afterUpdater.map(\.title) == ["over 10", "asked"])
        try await host.dispatch("threshold.touch").value
        #expect(host.state.todos == afterUpdater)  // a side effect: no predicate asked
        #expect(log.lines.allSatisfy { $0.contains("stopped: more than 1 reactions") })
    }

    @Test func onNotificationFiresWithThePostedPayload() async throws {
        let rules = try listPlugin(
            scratch, "ticks", "observers",
            """
            { on_notification = "app.tick", dispatch = { { "counter.increment", function(tick) return { by = tick.seconds } end } } },
            { on_notification = "app.other", dispatch = { "counter.reset" } },
            """)
        let host = try host([shippedPlugin("counter"), rules])
        host.post("app.tick", payload: ["seconds": 30])
        host.post("app.unheard")
        #expect(host.state.counter == 30)
    }

    @Test func aRunawayObserverIsStoppedWithAnErrorNamingTheRule() async throws {
        let rules = try listPlugin(
            scratch, "loop", "observers",
            """
            { on_dispatch = "counter.increment", dispatch = { "counter.increment" } },
            """)
        let host = try host([shippedPlugin("counter"), rules], maxCascadeDepth: 5)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 6)
        let reports = log.lines
        #expect(reports.count == 1)
        #expect(reports.first?.contains("loop.observers[1]: loop/plugin.lua:4: dispatching counter.increment") == true)
        #expect(reports.first?.contains("stopped: more than 5 reactions in a row") == true)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
    }

    @Test func aRunawayThroughASideEffectIsStoppedToo() async throws {
        let rules = try scratch.write(
            "echo",
            """
            return {
              name = "echo",
              side_effects = { again = function(ctx) ctx.dispatch("counter.increment") end },
              observers = { { on_dispatch = "counter.increment", dispatch = { "echo.again" } } },
            }
            """)
        let host = try host([shippedPlugin("counter"), rules], maxCascadeDepth: 4)
        try await host.dispatch("counter.increment").value
        // The chain goes on in side effect tasks: wait for it to stop at the limit.
        await waitUntil { log.lines.contains { $0.contains("stopped") } }
        #expect(host.state.counter == 3)
        #expect(log.lines.contains { $0.contains("echo.observers[1]") })
    }

    @Test func aRunawayThroughASwiftSideEffectIsStoppedToo() async throws {
        let rules = try listPlugin(
            scratch, "echo", "observers",
            """
            { on_dispatch = "app.ping", dispatch = { "app.pong" } },
            """)
        let host = try host([rules], maxCascadeDepth: 6)
        try host.register(Ping.self, as: "app.ping")
        try host.register(Pong.self, as: "app.pong")
        try await host.store.dispatch(Ping()).value
        await waitUntil { log.lines.contains { $0.contains("stopped") } }
        await host.store.waitUntilIdle()
        #expect(host.state.counter == 4)  // Pings at depths 0, 2, 4 and 6; the Pong at 7 is refused
        #expect(log.lines.count == 1)
    }

    @Test func aRaisingPredicateIsReportedAndTheOtherRulesStillFire() async throws {
        let rules = try listPlugin(
            scratch, "shaky", "observers",
            """
            { on_state_change = function(old, new) return new.missing.field end, dispatch = { "counter.reset" } },
            { on_dispatch = "counter.increment", dispatch = { { "counter.increment", function() error("no payload today") end } } },
            { on_state_change = function(old, new) return new.counter == 1 end, dispatch = { { "counter.increment", { by = 10 } } } },
            """)
        let host = try host([shippedPlugin("counter"), rules])
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 11)
        let reports = log.lines
        #expect(reports.contains { $0.contains("shaky.observers[1]: shaky/plugin.lua:4: on_state_change: attempt to index a nil value") })
        #expect(reports.contains { $0.contains("shaky.observers[2]: shaky/plugin.lua:5: dispatching counter.increment: no payload today") })
    }

    @Test func aFailingItemDispatchedByARuleIsReportedWithTheRule() async throws {
        let rules = try listPlugin(
            scratch, "strict", "observers",
            """
            { on_dispatch = "counter.reset", dispatch = { { "todo.add", { title = "" } } } },
            """)
        let host = try host([shippedPlugin("counter"), shippedPlugin("todo"), rules])
        try await host.dispatch("counter.reset").value
        await waitUntil { !log.lines.isEmpty }
        #expect(
            log.lines == [
                "error: todo.add, dispatched by strict.observers[1], failed: todo.add: todo/plugin.lua:15: "
                    + "todo.add needs a payload { title = <non-empty string> }"
            ])
    }

    /// Rules are found by their trigger's line; a rule without one is placed at `observers`.
    @Test(arguments: [
        ("{ dispatch = { \"counter.reset\" } }", "observers[1] must have exactly one of on_start", 3),
        ("{ on_dispatch = \"a.b\", on_notification = \"c\", dispatch = {} }", "observers[1] must have exactly one of", 4),
        ("{ on_dispatch = \"counter.reset\" }", "observers[1] has nothing to dispatch", 4),
        ("{ on_dispatch = 3, dispatch = {} }", "observers[1].on_dispatch must be a name, found integer 3", 4),
        ("{ on_state_change = true, dispatch = {} }", "observers[1].on_state_change must be a function", 4),
        ("{ on_start = { 42 } }", "observers[1].on_start[1] must be an item name or { name, payload }, found integer 42", 4),
        ("{ on_start = { \"x.y\" }, when = 1 }", "observers[1] has an unknown field 'when'", 4),
        ("\"counter.reset\"", "observers[1] must be a rule table, found string", 3),
        ("{ on_dispatch = \"a.b\", dispatch = { x = \"a.b\" } }", "observers[1].dispatch must be a list, but has the key 'x'", 4),
        ("{ on_start = { \"a.b\" }, dispatch = { \"c.d\" } }", "observers[1] has both an on_start list and a dispatch list", 4),
    ])
    func aMalformedRuleIsALoadErrorAtItsLine(rule: String, message: String, line: Int) throws {
        let plugin = try listPlugin(scratch, "bad", "observers", rule + ",")
        let host = try host([plugin])
        let error = try #require(host.loadErrors.first)
        #expect(error.kind == .shape)
        #expect(error.message.hasPrefix(message), "\(error.message)")
        #expect(error.location?.description == "bad/plugin.lua:\(line)")
    }

    @Test func namedRulesAreRefusedNotSilentlyLeftOut() throws {
        let plugin = try scratch.write(
            "named",
            """
            return {
              name = "named",
              observers = { save = { on_start = { "named.x" } } },
            }
            """)
        let error = try #require(try host([plugin]).loadErrors.first)
        #expect(error.message == "observers must be a list, but has the key 'save'")
        #expect(error.location?.description == "named/plugin.lua:3")
    }

    @Test func anInterceptorThatIsNotAFunctionIsALoadError() throws {
        let plugin = try listPlugin(scratch, "bad", "interceptors", "\"not a function\",")
        let host = try host([plugin])
        let error = try #require(host.loadErrors.first)
        #expect(error.message == "interceptors[1] must be a function, found string \"not a function\"")
        #expect(error.location?.description == "bad/plugin.lua:3")
    }

    /// A plugin whose `add` sets off two rules (`on_dispatch`, `on_state_change`), each marking the state
    /// with a todo; its interceptor renames the side effect `become_add` into `add`, and fails after its
    /// `next` when `interceptorFails`.
    func markingPlugin(interceptorFails: Bool = false) throws -> String {
        try scratch.write(
            "guarded",
            """
            return {
              name = "guarded",
              updaters = {
                add = function(state) state.counter = state.counter + 1 end,
                mark = function(state) state.todos[#state.todos + 1] = { title = "marked", done = false } end,
              },
              side_effects = { become_add = function() end },
              interceptors = { function(item, next)
                if item.name == "guarded.become_add" then item.name = "guarded.add" end
                next(item)
                if item.name == "guarded.add" and \(interceptorFails) then error("refused after next") end
              end },
              observers = {
                { on_dispatch = "guarded.add", dispatch = { "guarded.mark" } },
                { on_state_change = function(old, new) return old.counter ~= new.counter end, dispatch = { "guarded.mark" } },
              },
            }
            """)
    }

    /// A Lua interceptor that fails after its `next` undoes the change (one transaction): no rule reacts to
    /// it, as no listener hears of it; the same interceptor letting the item through sets the rules off.
    @Test(arguments: [false, true])
    func rulesReactOnlyToAChangeThatStays(interceptorFails: Bool) async throws {
        let host = try host([try markingPlugin(interceptorFails: interceptorFails)])
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        let dispatch = try host.dispatch("guarded.add")
        await host.store.waitUntilIdle()
        if interceptorFails {
            let error = await #expect(throws: PluginError.self) { try await dispatch.value }
            #expect(error?.message.contains("refused after next") == true)
            #expect(host.state == AppState())
            #expect(changes.count == 0)
        } else {
            #expect(host.state.counter == 1)
            #expect(host.state.todos.map(\.title) == ["marked", "marked"])
        }
    }

    /// A side effect renamed into an updater is re-dispatched: the rules see the updater once, as it
    /// runs, not also where the store only queued it.
    @Test func rulesSeeAnItemRenamedIntoTheOtherKindOnceAsItRuns() async throws {
        let host = try host([try markingPlugin()])
        try await host.dispatch("guarded.become_add").value
        await host.settle()
        #expect(host.state.counter == 1)
        #expect(host.state.todos.map(\.title) == ["marked", "marked"])
    }
}
