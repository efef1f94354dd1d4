import Moonblade
import MoonbladeHost
import MoonbladeLua
import Testing

/// What the sandbox still lets plugins do, and that what one plugin tries cannot reach another.
@Suite("The plugin sandbox")
struct SandboxTests {
    @Test func pluginsDefineGlobalsAndUseTheLibrariesFreely() async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "free",
            """
            greeting = "hello"                 -- a global of its own
            local function shout(s) return s:upper() .. "!" end
            return {
              updaters = {
                run = function(state)
                  local names = {}
                  for name in pairs(string) do names[#names + 1] = name end
                  table.sort(names)
                  local compiled = load("return greeting .. ' ' .. tostring(_G == _ENV)")
                  state.todos = {}
                  for _, title in ipairs {
                    shout(greeting),
                    string.format("%d names, nothing: %s", #names, tostring(rawget(_ENV, "nothing"))),
                    compiled(),
                    type(collectgarbage("count")) .. " " .. type(getmetatable("").__index.upper),
                  } do
                    state.todos[#state.todos + 1] = { title = title, done = false }
                  end
                end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [plugin])
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        try await host.dispatch("free.run").value
        #expect(
            host.state.todos.map(\.title) == [
                "HELLO!", "16 names, nothing: nil", "hello true", "number function",
            ])
    }

    @Test func whatOnePluginTriesDoesNotChangeWhatAnotherSees() async throws {
        let scratch = ScratchPlugins()
        let vandal = try scratch.write(
            "vandal",
            """
            local attempts = {
              function() string.upper = nil end,
              function() rawset(table, "insert", nil) end,
              function() getmetatable("").__index = {} end,
              function() getmetatable("").__index.upper = nil end,
              function() setmetatable(math, { __index = function() return 0 end }) end,
              function() load("string.lower = nil")() end,
            }
            return {
              updaters = {
                run = function(state)
                  for _, attempt in ipairs(attempts) do
                    if pcall(attempt) then error("an attempt succeeded") end
                  end
                  string = { upper = function() return "vandalised" end }   -- its own global: allowed
                  state.counter = #attempts
                end,
              },
            }
            """)
        let victim = try scratch.write(
            "victim",
            """
            return {
              updaters = {
                run = function(state)
                  local list = {}
                  table.insert(list, string.upper("a") .. ("b"):upper() .. string.lower("C") .. math.floor(1.5))
                  state.todos = { { title = list[1], done = false } }
                end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [vandal, victim])
        try await host.dispatch("vandal.run").value
        #expect(host.state.counter == 6)
        try await host.dispatch("victim.run").value
        #expect(host.state.todos == [Todo(title: "ABc1")])
    }

    /// A dependency that ignores cancellation cannot hold a side effect past its time limit.
    @Test func aSideEffectStopsWaitingOnADependencyThatIgnoresCancellation() async throws {
        let parked = Locked<[CheckedContinuation<Void, Never>]>([])
        var dependencies = PluginDependencies()
        dependencies.expose("slow", "forever") { () async -> Int in
            await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
            return 1
        }
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "waiter",
            """
            return {
              side_effects = {
                wait = function(ctx)
                  return ctx.deps.slow.forever()
                end,
                quick = function(ctx) return 5 end,
              },
            }
            """)
        let host = try PluginHost<AppState>(
            plugins: [plugin], dependencies: dependencies,
            configuration: .init(sideEffectTimeLimit: .milliseconds(100)))
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("waiter.wait").value }
        #expect(error?.kind == .limit)
        #expect(
            error?.description
                == "waiter.wait: waiter/plugin.lua:3: time limit of 0.1 s exceeded while awaiting Swift work")
        #expect(try await host.dispatch("waiter.quick", returning: Int.self).value == 5)
        parked.withLock { $0.forEach { $0.resume() } }
    }
}

extension SandboxTests {
    /// The stand-ins for `xpcall` and `coroutine.wrap` keep Lua's behaviour: awaiting inside `xpcall`,
    /// handlers, yields of a wrapped coroutine, errors with the caller's place.
    @Test func guardedLibraryFunctionsBehaveLikeLuasOwn() async throws {
        var dependencies = PluginDependencies()
        dependencies.expose("clock", "tick") { () async throws -> Int in 1 }
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "guarded",
            """
            return {
              side_effects = {
                run = function(ctx)
                  local ok, ticked = xpcall(function() return ctx.deps.clock.tick() end, debug_handler)
                  local handled = select(2, xpcall(error, function(message) return "handled " .. message end, "oops", 0))
                  local counter = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return a + b end)
                  local first, second = counter(1), counter(10)
                  local dead_ok, dead = pcall(function() return counter() end)
                  local closed = coroutine.create(function() coroutine.yield() end)
                  coroutine.resume(closed)
                  return table.concat({ tostring(ok), ticked, handled, first, second, tostring(dead_ok), dead,
                    tostring(coroutine.close(closed)) }, "|")
                end,
              },
            }
            """.replacingOccurrences(of: "debug_handler", with: "function(m) return m end"))
        let host = try PluginHost<AppState>(plugins: [plugin], dependencies: dependencies)
        let result = try await host.dispatch("guarded.run", returning: String.self).value
        #expect(
            result == "true|1|handled oops|2|11|false|guarded/plugin.lua:8: cannot resume dead coroutine|true"
        )
    }
}
