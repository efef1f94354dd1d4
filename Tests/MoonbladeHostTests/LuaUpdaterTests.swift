import Moonblade
import MoonbladeHost
import MoonbladeLua
import Testing

/// A typed wrapper of `todo.add`.
struct AddTodo: LuaStateUpdater {
    static let luaItem = "todo.add"
    var title: String
}

@Suite("Lua updaters")
/// A typed wrapper that names a side effect as if it were an updater.
struct LoadAsUpdater: LuaStateUpdater {
    static let luaItem = "todo.load"
}

struct LuaUpdaterTests {
    @Test func aTypedFaceOfTheWrongKindIsRefusedNotRun() async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("todo")], initialState: AppState(counter: 3))
        let error = try await #require(throws: PluginError.self) { try await host.store.dispatch(LoadAsUpdater()).value }
        #expect(error.kind == .wrongKind)
        #expect(error.description == "todo.load: is a side effect, not an updater")
        #expect(host.state == AppState(counter: 3))
    }

    @Test func swiftDispatchesALuaUpdaterByNameWithAPayload() async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter")])
        let recorder = ChangeRecorder()
        recorder.attach(to: host.store)
        try await host.dispatch("counter.increment").value
        try await host.dispatch("counter.increment", ["by": 41]).value
        #expect(host.state.counter == 42)
        #expect(recorder.changes.withLock { $0.map(\.new.counter) } == [1, 42])
    }

    @Test func aTypedWrapperRunsItsLuaItem() async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("todo")])
        try await host.store.dispatch(AddTodo(title: "milk")).value
        #expect(host.state.todos == [Todo(title: "milk")])
    }

    @Test func anUpdaterMayReturnANewStateInsteadOfMutating() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write("fresh", "return { updaters = { set = function(state, p) return { counter = p.n, todos = {} } end } }")
        let host = try PluginHost<AppState>(plugins: [plugin], initialState: AppState(counter: 1, todos: [Todo(title: "x")]))
        try await host.dispatch("fresh.set", ["n": 9]).value
        #expect(host.state == AppState(counter: 9, todos: []))
    }

    /// Each way an updater can fail: a typed error with its place, the state and listeners untouched.
    @Test(arguments: [
        (item: "bad.raise", kind: PluginError.Kind.runtime, line: 3, says: "the sky is falling"),
        (item: "bad.wrong_type", kind: .invalidState, line: 4, says: "state.todos[1].done: expected Bool, found string \"yes\""),
        (item: "bad.missing_field", kind: .invalidState, line: 5, says: "state.todos[1]: required key \"title\" is missing"),
        (item: "bad.half_done", kind: .runtime, line: 6, says: "attempt to perform arithmetic"),
        (item: "bad.yield", kind: .runtime, line: 7, says: "yield"),
    ])
    func aFailingUpdaterLeavesTheStateAsItWas(item: String, kind: PluginError.Kind, line: Int, says: String) async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "bad",
            """
            return {
              updaters = {
                raise = function(state) state.counter = 99 error("the sky is falling") end,
                wrong_type = function(state) state.todos[1] = { title = "t", done = "yes" } end,
                missing_field = function(state) state.counter = 5 state.todos[1] = { done = true } end,
                half_done = function(state) state.counter = 7 state.todos = nil local x = state.todos + 1 end,
                yield = function(state) state.counter = 8 coroutine.yield() end,
              },
            }
            """)
        let initial = AppState(counter: 1, todos: [])
        let host = try PluginHost<AppState>(plugins: [plugin], initialState: initial)
        let recorder = ChangeRecorder()
        recorder.attach(to: host.store)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch(item).value }
        #expect(error?.kind == kind)
        #expect(error?.item == item)
        #expect(error?.location == LuaLocation(source: "bad/plugin.lua", line: line))
        #expect(error?.description.contains(says) == true, "\(error.map(String.init(describing:)) ?? "")")
        #expect(host.state == initial)
        #expect(recorder.count == 0)
    }

    @Test func aWrongPayloadIsAnErrorAtThePluginLineThatChecksIt() async throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("todo")], initialState: AppState(counter: 3))
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("todo.add", ["title": 5]).value }
        #expect(error?.kind == .runtime)
        #expect(error?.location == LuaLocation(source: "todo/plugin.lua", line: 15))
        #expect(error?.description.contains("needs a payload { title = <non-empty string> }") == true)
        #expect(host.state == AppState(counter: 3))
    }

    @Test func aMemoryBombIsALimitErrorPlacedAtTheUpdaterAndTheHostCarriesOn() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "greedy",
            """
            return {
              updaters = {
                hoard = function(state)
                  local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end
                end,
                bump = function(state) state.counter = state.counter + 1 end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin], configuration: .init(memoryLimit: 8 << 20))
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("greedy.hoard").value }
        #expect(error?.kind == .limit)
        #expect(error?.location == LuaLocation(source: "greedy/plugin.lua", line: 4))  // the line that allocated
        #expect(error?.description.contains("memory limit of 8388608 bytes exceeded") == true)
        #expect(host.state == AppState())
        try await host.dispatch("greedy.bump").value
        #expect(host.state.counter == 1)
    }

    @Test func unknownItemsAreRefusedAtDispatch() throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter")])
        let error = #expect(throws: PluginError.self) { try host.dispatch("counter.nope") }
        #expect(error?.kind == .unknownItem)
        let wrongKind = #expect(throws: PluginError.self) { try host.dispatch("counter.increment", returning: Int.self) }
        #expect(wrongKind?.kind == .wrongKind)
    }

    @Test func aTypedWrapperOutsideAPluginHostFailsClearly() async throws {
        let store = Store<AppState, EmptySideEffectDependencyContainer>()
        let error = await #expect(throws: PluginError.self) { try await store.dispatch(AddTodo(title: "x")).value }
        #expect(error?.kind == .unbound)
    }
}
