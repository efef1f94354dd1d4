import Moonblade
import MoonbladeHost
import Testing

@Suite("Lua interceptors")
struct LuaInterceptorTests {
    let scratch = ScratchPlugins()

    @Test func anInterceptorSeesTheItemAndPassesItOnWithAChangedPayload() async throws {
        let guardPlugin = try listPlugin(
            scratch, "tenfold", "interceptors",
            """
            function(item, next)
              assert(item.name == "counter.increment" and item.kind == "updater", item.name)
              item.payload.by = item.payload.by * 10
              next(item)
            end,
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), guardPlugin])
        try await host.dispatch("counter.increment", ["by": 2]).value
        #expect(host.state.counter == 20)
    }

    @Test func anInterceptorMayRenameTheItem() async throws {
        let rename = try listPlugin(
            scratch, "rename", "interceptors",
            """
            function(item, next)
              if item.name == "counter.increment" then item.name = "counter.reset" end
              next(item)
            end,
            """)
        let host = try PluginHost<AppState>(
            plugins: [shippedPlugin("counter"), rename], initialState: AppState(counter: 5))
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 0)
    }

    @Test func returningWithoutNextDropsTheItem() async throws {
        let drop = try listPlugin(scratch, "drop", "interceptors", "function(item, next) end,")
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), drop])
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 0)
        #expect(changes.count == 0)
    }

    /// A side effect that does not run (dropped, or renamed into an updater) returns nothing: nil to a
    /// dispatcher asking for a value that can be nil, as a Lua side effect returning nothing does.
    @Test func aSideEffectDroppedOrRenamedIntoAnUpdaterReturnsNothing() async throws {
        let plugin = try scratch.write(
            "p",
            """
            return {
              name = "p",
              updaters = { add = function(state) state.counter = state.counter + 1 end },
              side_effects = { answer = function() return 42 end, become_add = function() return 1 end },
              interceptors = { function(item, next)
                if item.name == "p.answer" then return end
                if item.name == "p.become_add" then item.name = "p.add" end
                next(item)
              end },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        #expect(try await host.dispatch("p.answer", returning: JSONValue.self).value == .null)
        #expect(try await host.dispatch("p.answer", returning: Int?.self).value == nil)
        #expect(try await host.dispatchAndSettle("p.answer") == nil)
        #expect(try await host.dispatch("p.become_add", returning: JSONValue.self).value == .null)
        await host.settle()
        #expect(host.state.counter == 1)
        let error = try await #require(throws: StoreError.self) { try await host.dispatch("p.answer", returning: Int.self).value }
        #expect(error.description.contains("found no value (an interceptor dropped the side effect"))
    }

    @Test func raisingRejectsTheItemWithThePluginAndItsLine() async throws {
        let reject = try listPlugin(
            scratch, "limits", "interceptors",
            """
            function(item, next)
              if item.payload and item.payload.by > 100 then error("too big a step: " .. item.payload.by) end
              next(item)
            end,
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), reject])
        let error = try await #require(throws: PluginError.self) {
            try await host.dispatch("counter.increment", ["by": 500]).value
        }
        #expect(error.kind == .runtime)
        #expect(error.plugin == "limits")
        #expect(error.item == "counter.increment")
        #expect(error.location?.description == "limits/plugin.lua:5")
        #expect(error.message == "too big a step: 500")
        #expect(host.state.counter == 0)
        try await host.dispatch("counter.increment", ["by": 3]).value
        #expect(host.state.counter == 3)
    }

    @Test func anUpdatersOwnErrorPassesThroughTheInterceptorUnchanged() async throws {
        let pass = try listPlugin(scratch, "pass", "interceptors", "function(item, next) next(item) end,")
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("todo"), pass])
        let error = try await #require(throws: PluginError.self) {
            try await host.dispatch("todo.add", ["title": ""]).value
        }
        #expect(error.item == "todo.add")
        #expect(error.location?.description == "todo/plugin.lua:15")
        #expect(host.state.todos.isEmpty)
    }

    /// `return next(item)`, a tail call, is placed at its line too (a `next` written in Lua left no line
    /// of the interceptor to name).
    @Test(arguments: ["next(item)", "return next(item)"])
    func callingNextTwiceIsAnErrorNotADoubleDispatch(secondCall: String) async throws {
        let twice = try listPlugin(
            scratch, "twice", "interceptors",
            """
            function(item, next)
              next(item)
              \(secondCall)
            end,
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), twice])
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        let error = try await #require(throws: PluginError.self) {
            try await host.dispatch("counter.increment").value
        }
        #expect(error.message.contains("next was called twice"))
        #expect(error.location?.description == "twice/plugin.lua:6")
        // One transaction: the change the first `next` applied is undone, and no listener heard of it.
        #expect(host.state.counter == 0)
        #expect(changes.count == 0)
    }

    /// A `next` kept past its interceptor ends with it, even when the interceptor raised: called during
    /// another item's interception, it would hand the earlier item on in its place.
    @Test func aNextKeptFromAnInterceptorThatRaisedIsRefusedAtItsLine() async throws {
        let keeper = try scratch.write(
            "keeper",
            """
            local kept
            return { name = "keeper", interceptors = { function(item, next)
              if kept then local stale = kept; kept = nil; return stale(item) end
              kept = next
              error("refused, next kept")
            end } }
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), keeper])
        let first = try await #require(throws: PluginError.self) { try await host.dispatch("counter.increment").value }
        #expect(first.message.contains("refused, next kept"))
        let second = try await #require(throws: PluginError.self) { try await host.dispatch("counter.reset").value }
        #expect(second.message.contains("next was called after its interceptor returned"), "\(second)")
        #expect(second.location?.description == "keeper/plugin.lua:3")
        #expect(host.state.counter == 0)
    }

    @Test func anInterceptorFailingAfterNextUndoesTheChangeAndTheNextDispatchWorks() async throws {
        let late = try listPlugin(
            scratch, "late", "interceptors",
            """
            function(item, next)
              next(item)
              if item.payload and item.payload.fail then error("refused after the fact") end
            end,
            """)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), late])
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        try await host.dispatch("counter.increment", ["by": 2]).value
        let error = try await #require(throws: PluginError.self) {
            try await host.dispatch("counter.increment", ["by": 5, "fail": true] as [String: JSONValue]).value
        }
        #expect(error.message.contains("refused after the fact"))
        #expect(host.state.counter == 2)
        try await host.dispatch("counter.increment", ["by": 1]).value
        #expect(host.state.counter == 3)
        #expect(changes.changes.withLock { $0.map(\.new.counter) } == [2, 3])
    }

    @Test func nextCalledInsideACoroutineAppliesTheUpdaterOnThatCoroutinesStack() async throws {
        let wrapped = try scratch.write(
            "wrapped",
            """
            return {
              name = "wrapped",
              updaters = {
                -- Records whether it runs on the main thread: it must run on the interceptor's coroutine,
                -- the thread that is running, never on the main one blocked in resuming it.
                mark = function(state) state.ran_on_main = select(2, coroutine.running()) end,
              },
              interceptors = { function(item, next) coroutine.wrap(function() next(item) end)() end },
            }
            """)
        let host = try PluginHost<JSONValue>(plugins: [wrapped])
        try await host.dispatch("wrapped.mark").value
        #expect(host.state["ran_on_main"] == false)
    }

    @Test func swiftAndLuaInterceptorsFormOneChainInTheDocumentedOrder() async throws {
        let first = try listPlugin(
            scratch, "first", "interceptors",
            """
            function(item, next) table.insert(item.payload.trail, "first.a"); next(item) end,
            function(item, next) table.insert(item.payload.trail, "first.b"); next(item) end,
            """)
        let second = try listPlugin(
            scratch, "second", "interceptors",
            """
            function(item, next) table.insert(item.payload.trail, "second"); next(item) end,
            """)
        let recorder = try scratch.write(
            "recorder",
            """
            return { name = "recorder", updaters = { keep = function(state, p) state.trail = p.trail end } }
            """)
        // The Swift interceptor is outermost: before its `next`, no Lua interceptor has run; after it,
        // all of them have, and the updater too.
        let trailsSeenBySwift = Locked<[JSONValue?]>([])
        let swiftInterceptor: StoreInterceptor = { context in
            { next in
                { item in
                    trailsSeenBySwift.withLock { $0.append((context.getAnyState() as! JSONValue)["trail"]) }
                    try next(item)
                    trailsSeenBySwift.withLock { $0.append((context.getAnyState() as! JSONValue)["trail"]) }
                }
            }
        }
        let host = try PluginHost<JSONValue>(
            plugins: [recorder, first, second], interceptors: [swiftInterceptor])
        try await host.dispatch("recorder.keep", ["trail": JSONValue.array([])]).value
        #expect(host.state["trail"] == ["first.a", "first.b", "second"])
        #expect(trailsSeenBySwift.withLock { $0 } == [nil, ["first.a", "first.b", "second"]])
    }

    @Test func aRegisteredSwiftItemPassesLuaInterceptorsByName() async throws {
        let double = try listPlugin(
            scratch, "double", "interceptors",
            """
            function(item, next)
              if item.name == "app.set" then item.payload.value = item.payload.value * 2 end
              next(item)
            end,
            """)
        let host = try PluginHost<AppState>(plugins: [double])
        try host.register(SetCounter.self, as: "app.set")
        try await host.store.dispatch(SetCounter(value: 21)).value
        #expect(host.state.counter == 42)
    }

    @Test func anInterceptorReDispatchingForeverIsStoppedAndTheStoreKeepsServing() async throws {
        let pingPong = try scratch.write(
            "pingpong",
            """
            return {
              name = "pingpong",
              updaters = { ping = function(state) state.counter = state.counter + 1 end },
              side_effects = { pong = function(ctx) end },
              interceptors = {
                function(item, next)
                  item.name = item.name == "pingpong.ping" and "pingpong.pong" or "pingpong.ping"
                  next(item)
                end,
              },
            }
            """)
        let host = try PluginHost<AppState>(
            plugins: [pingPong, shippedPlugin("counter")], configuration: .init(maxCascadeDepth: 6))
        let error = try await #require(throws: PluginError.self) {
            try await host.dispatch("pingpong.ping").value
        }
        #expect(error.message.contains("stopped: more than 6 reactions in a row"))
        #expect(error.plugin == "pingpong")
        #expect(error.location?.description == "pingpong/plugin.lua:8")
        #expect(host.state.counter == 0)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 1)
    }
}
