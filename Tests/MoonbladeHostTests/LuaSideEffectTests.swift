import Moonblade
import MoonbladeHost
import MoonbladeLua
import Testing

/// A Swift updater Lua can dispatch by name (and, being `Encodable`, see the payload of).
struct SetCounter: StateUpdater, Codable {
    var value: Int
    func updateState(_ state: inout AppState) { state.counter = value }
}

/// A typed wrapper of `todo.load`, which returns how many todos it loaded.
struct LoadTodos: LuaReturningSideEffect {
    typealias ReturnValue = Int
    static let luaItem = "todo.load"
}

struct StorageUnavailable: Error, CustomStringConvertible {
    var description: String { "storage is unavailable" }
}

/// Holds callers until `expected` of them are waiting, then releases them all: proof that they were
/// all in flight at once, with no timing involved.
final class Rendezvous: Sendable {
    private let state: Locked<(arrived: Int, waiting: [CheckedContinuation<Void, Never>])> = Locked((0, []))
    let expected: Int

    init(expected: Int) { self.expected = expected }

    func arrive() async {
        await withCheckedContinuation { continuation in
            let release = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.waiting.append(continuation)
                return state.arrived >= expected ? state.waiting : []
            }
            release.forEach { $0.resume() }
        }
    }
}

@Suite("Lua side effects")
struct LuaSideEffectTests {
    @Test func todoPluginRunsFromLuaWithAStorageDependency() async throws {
        let storage = MemoryStorage()
        storage.saved.withLock { $0["todos"] = [Todo(title: "saved", done: true)] }
        var dependencies = PluginDependencies()
        storage.expose(in: &dependencies)
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("todo")], dependencies: dependencies)

        let loaded = try await host.store.dispatch(LoadTodos()).value
        #expect(loaded == 1)
        #expect(host.state.todos == [Todo(title: "saved", done: true)])

        try await host.dispatch("todo.add", ["title": "milk"]).value
        try await host.dispatch("todo.save").value
        #expect(storage.saved.withLock { $0["todos"] } == [Todo(title: "saved", done: true), Todo(title: "milk")])
    }

    @Test func aHundredSideEffectsAwaitASlowDependencyAtOnce() async throws {
        struct Request: Decodable { var n: Int }
        let rendezvous = Rendezvous(expected: 100)
        var dependencies = PluginDependencies()
        dependencies.expose("slow", "double") { (request: Request) async -> Int in
            await rendezvous.arrive()
            return request.n * 2
        }
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "calc",
            """
            return { side_effects = { double = function(ctx, p) return ctx.deps.slow.double { n = p.n } + 0 end } }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin], dependencies: dependencies)
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for n in 0..<100 {
                group.addTask { (n, try await host.dispatch("calc.double", ["n": n], returning: Int.self).value) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0.value == $0.key * 2 })
    }

    /// Lua calls each exposed function by its number: functions of the same name in different groups,
    /// and several in one group, each reach their own Swift code.
    @Test func eachExposedFunctionIsReachedByItsGroupAndName() async throws {
        struct Request: Decodable { var n: Int }
        var dependencies = PluginDependencies()
        dependencies.expose("b", "get") { (request: Request) async -> Int in request.n + 2000 }
        dependencies.expose("a", "get") { (request: Request) async -> Int in request.n + 100 }
        dependencies.expose("a", "put") { (request: Request) async -> Int in request.n + 30_000 }
        dependencies.expose("c", "now") { () async -> Int in 400_000 }
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "calls",
            """
            return { side_effects = { all = function(ctx)
              return ctx.deps.a.get { n = 1 } + ctx.deps.b.get { n = 2 } + ctx.deps.a.put { n = 3 } + ctx.deps.c.now()
            end } }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin], dependencies: dependencies)
        #expect(try await host.dispatch("calls.all", returning: Int.self).value == 101 + 2002 + 30_003 + 400_000)
    }

    @Test func aSideEffectAwaitsANestedLuaSideEffectAndSeesTheStateItLeft() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "flow",
            """
            return {
              updaters = { bump = function(state, p) state.counter = state.counter + p.by end },
              side_effects = {
                inner = function(ctx, p)
                  ctx.dispatch("flow.bump", { by = p.by })
                  return { seen = ctx.state().counter, label = "inner" }
                end,
                outer = function(ctx)
                  local result = ctx.dispatch("flow.inner", { by = 5 })
                  return result.label .. ":" .. result.seen .. ":" .. ctx.state().counter
                end,
              },
            }
            """)
        let host = try PluginHost<AppState>(
            plugins: [plugin], initialState: AppState(counter: 10), configuration: .awaitingPoolWork)
        #expect(try await host.dispatch("flow.outer", returning: String.self).value == "inner:15:15")
    }

    @Test func luaDispatchesASwiftItemByName() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "bridge",
            """
            return { side_effects = { set = function(ctx, p) ctx.dispatch("app.set_counter", { value = p.value }) return ctx.state().counter end } }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        try host.register(SetCounter.self, as: "app.set_counter")
        #expect(try await host.dispatch("bridge.set", ["value": 7], returning: Int.self).value == 7)
        #expect(host.state.counter == 7)
    }

    @Test func ctxStateIsAReadOnlyViewThatSidesEffectsCanPassOn() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "peek",
            """
            return { side_effects = {
              poke = function(ctx)
                local s = ctx.state()
                s.counter = 1000
              end,
              deep = function(ctx) ctx.state().todos[1].done = true end,
              pass = function(ctx)
                local s = ctx.state()
                local n = 0
                for _, todo in ipairs(s.todos) do n = n + #todo.title end
                ctx.dispatch("app.set_counter", { value = n + #s.todos })
                return s.todos
              end,
            } }
            """)
        let host = try PluginHost<AppState>(
            plugins: [plugin], initialState: AppState(counter: 3, todos: [Todo(title: "milk"), Todo(title: "tea")]))
        try host.register(SetCounter.self, as: "app.set_counter")
        for item in ["peek.poke", "peek.deep"] {
            let error = try await #require(throws: PluginError.self) { try await host.dispatch(item).value }
            #expect(error.message.contains("state is read-only here"))
            #expect(error.location?.source == "peek/plugin.lua")
        }
        #expect(host.state.counter == 3)
        // What a view shows passes on as data: reads, #, ipairs, and as a result or payload.
        #expect(try await host.dispatch("peek.pass", returning: [Todo].self).value == host.state.todos)
        #expect(host.state.counter == 9)
    }

    /// Each way a side effect can fail reaches the dispatcher with plugin, item and place.
    @Test(arguments: [
        (item: "fail.raise", line: 4, says: "boom"),
        (item: "fail.dependency", line: 5, says: "storage is unavailable"),
        (item: "fail.unknown_item", line: 6, says: "no item named nope.nothing"),
        (item: "fail.bad_arguments", line: 7, says: "arguments.key: expected String, found integer 42"),
        (item: "fail.nested", line: 8, says: "boom"),
        (item: "fail.bare_yield", line: 9, says: "cannot yield by itself"),
        (item: "fail.inner_coroutine", line: 10, says: "can only be awaited by a side effect itself"),
        (item: "fail.swift_payload", line: 11, says: "payload.value: expected Int, found string \"ten\""),
    ])
    func aFailingSideEffectReportsItsPlace(item: String, line: Int, says: String) async throws {
        var dependencies = PluginDependencies()
        struct Request: Decodable { var key: String }
        dependencies.expose("storage", "read") { (_: Request) async throws -> Int in throw StorageUnavailable() }
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "fail",
            """
            -- every side effect here fails, each in its own way
            return {
              side_effects = {
                raise = function(ctx) error("boom") end,
                dependency = function(ctx) return ctx.deps.storage.read { key = "k" } end,
                unknown_item = function(ctx) ctx.dispatch("nope.nothing") end,
                bad_arguments = function(ctx) ctx.deps.storage.read { key = 42 } end,
                nested = function(ctx) ctx.dispatch("fail.raise") end,
                bare_yield = function(ctx) coroutine.yield() end,
                inner_coroutine = function(ctx) coroutine.wrap(function() ctx.dispatch("fail.raise") end)() end,
                swift_payload = function(ctx) ctx.dispatch("app.set_counter", { value = "ten" }) end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin], dependencies: dependencies, configuration: .awaitingPoolWork)
        try host.register(SetCounter.self, as: "app.set_counter")
        let error = await #expect(throws: PluginError.self) { try await host.dispatch(item).value }
        #expect(error?.item == item)
        #expect(error?.plugin == "fail")
        #expect(error?.location == LuaLocation(source: "fail/plugin.lua", line: line), "\(error.map(String.init(describing:)) ?? "")")
        #expect(error?.description.contains(says) == true, "\(error.map(String.init(describing:)) ?? "")")
        if item == "fail.dependency" {
            #expect(error?.underlying is StorageUnavailable)
        }
        if item == "fail.unknown_item" {  // what it is when Swift dispatches an unknown name
            #expect(error?.kind == .unknownItem)
        }
        #expect(host.state == AppState())
    }

    @Test func aSideEffectReturningTheWrongTypeIsAnError() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write("typo", "return { side_effects = { count = function(ctx) return 'three' end } }")
        let host = try PluginHost<AppState>(plugins: [plugin])
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("typo.count", returning: Int.self).value }
        #expect(error?.kind == .invalidValue)
        #expect(error?.description.contains("expected Int") == true, "\(error.map(String.init(describing:)) ?? "")")
    }
}

@Suite("Side-effect interceptors around Lua side effects")
struct HostSideEffectInterceptorTests {
    /// Katana's awaiting interceptor, on a plugin host: it dispatches a Lua updater, waits for it, and
    /// then lets the Lua side effect run, whose value still comes back.
    @Test func anInterceptorAwaitsALuaUpdaterBeforeTheLuaSideEffectRuns() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "wait",
            """
            return {
              updaters = { bump = function(state) state.counter = state.counter + 10 end },
              side_effects = { read = function(ctx) return ctx.state().counter end },
            }
            """)
        let before = Locked<[Int]>([])
        let host = try PluginHost<AppState>(
            plugins: [plugin],
            sideEffectInterceptors: [
                { context in
                    { next in
                        { sideEffect in
                            before.withLock { $0.append((context.getAnyState() as! AppState).counter) }
                            _ = try await context.anyDispatch(BumpByName()).value
                            return try await next(sideEffect)
                        }
                    }
                }
            ])
        #expect(try await host.dispatch("wait.read", returning: Int.self).value == 10)
        #expect(before.withLock { $0 } == [0])
    }
}

/// A Swift updater that adds 10, as `wait.bump` does, dispatched from a Swift interceptor.
private struct BumpByName: StateUpdater {
    func updateState(_ state: inout AppState) { state.counter += 10 }
}
