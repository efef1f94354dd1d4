import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// Reloads that land while work is under way: in the interceptor chain, in observer rules, in a side
/// effect awaiting Swift, or asked for by that Swift work itself.
@Suite("Hostile reloads: timing")
struct HostileReloadTimingTests {
    let scratch = ScratchPlugins()

    @Test func dispatchesThroughInterceptorsAndRulesDuringReloadsAreEachHandledOnce() async throws {
        let source: @Sendable (Int) -> String = { version in
            """
            return {
              name = "counterx", version = \(version),
              updaters = {
                add = function(state, p) state.counter = state.counter + p.by end,
                tick = function(state) state.counter = state.counter + 1 end,
              },
              interceptors = { function(item, next)
                if item.name == "counterx.add" then
                  local spin = 0
                  for i = 1, 200 do spin = spin + i end
                  item.payload.by = item.payload.by * 1000
                end
                next(item)
              end },
              observers = { { on_dispatch = "counterx.add", dispatch = { "counterx.tick" } } },
            }
            """
        }
        let folder = try scratch.write("counterx", source(1))
        let host = try PluginHost<AppState>(plugins: [folder])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...300 {
                group.addTask { try await host.dispatch("counterx.add", ["by": index]).value }
            }
            group.addTask {
                for version in 2...16 {
                    _ = try scratch.write("counterx", source(version))
                    try await host.reload(plugin: "counterx")
                }
            }
            try await group.waitForAll()
        }
        await host.store.waitUntilIdle()
        #expect(host.state.counter == (1...300).reduce(0, +) * 1000 + 300)
        #expect(host.plugins.map(\.version) == [16])
    }

    @Test func aSideEffectAwaitingSwiftFinishesOnItsOwnModulesAndMeetsTheNewItemsAfter() async throws {
        let gate = Gate()
        let source = { (tag: String, also: String) in
            """
            local words = require("words")
            return { name = "counterx",
              updaters = { \(also) = function(state) state.counter = state.counter + 1 end },
              side_effects = {
                run = function(ctx)
                  local before = words.tag
                  ctx.deps.gate.pass()
                  ctx.dispatch("counterx.old")
                  return before .. "/" .. words.tag
                end,
              } }
            """
        }
        let folder = try scratch.write("counterx", source("old", "old"))
        try "return { tag = \"old\" }".write(toFile: folder + "/words.lua", atomically: true, encoding: .utf8)
        let host = try PluginHost<AppState>(plugins: [folder], dependencies: gate.dependencies, configuration: .awaitingPoolWork)
        let running = try host.dispatch("counterx.run", returning: String.self)
        await gate.waitForEntry()
        _ = try scratch.write("counterx", source("new", "new"))
        try "return { tag = \"new\" }".write(toFile: folder + "/words.lua", atomically: true, encoding: .utf8)
        try await host.reload(plugin: "counterx")
        await gate.release()
        // Its module is the one it started with; the item it dispatches is looked up now: gone.
        let error = try await #require(throws: PluginError.self) { try await running.value }
        #expect(error.message.contains("counterx.old"), "\(error)")
        #expect(error.location?.description == "counterx/plugin.lua:8", "\(error)")
        #expect(host.state.counter == 0)
        try await host.dispatch("counterx.new").value
        #expect(host.state.counter == 1)
    }

    @Test(.hangGuard)
    func aSideEffectsOwnDependencyCanReloadItsPlugin() async throws {
        let hostBox = Locked<PluginHost<AppState>?>(nil)
        var dependencies = PluginDependencies()
        dependencies.expose("dev", "reload") { () async throws -> Int in
            let host = try #require(hostBox.withLock { $0 })
            return try await host.reload(plugin: "counterx").version
        }
        let source = { (version: Int) in
            """
            return { name = "counterx", version = \(version),
              updaters = { add = function(state, p) state.counter = state.counter + p.by * \(version) end },
              side_effects = { upgrade = function(ctx)
                local now = ctx.deps.dev.reload()
                ctx.dispatch("counterx.add", { by = 1 })
                return \(version) * 100 + now
              end },
            }
            """
        }
        let folder = try scratch.write("counterx", source(1))
        let host = try PluginHost<AppState>(plugins: [folder], dependencies: dependencies)
        hostBox.withLock { $0 = host }
        _ = try scratch.write("counterx", source(2))
        #expect(try await host.dispatch("counterx.upgrade", returning: Int.self).value == 102)
        await host.store.waitUntilIdle()
        #expect(host.state.counter == 2)
    }

    @Test func aBurstOfReloadCallsMigratesOnceAndLosesNoDispatch() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        _ = try scratch.write(
            "counterx",
            versionedCounter(
                factor: 1, version: 2,
                extra: """
                    migrate = function(state, from) state.todos[#state.todos + 1] = { title = "from " .. from, done = false } end,
                    """))
        let versions = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index.isMultiple(of: 2) { return try await host.reload(plugin: "counterx").version }
                    try await host.dispatch("counterx.add", ["by": index]).value
                    return nil
                }
            }
            return try await group.reduce(into: [Int]()) { if let version = $1 { $0.append(version) } }
        }
        #expect(versions == Array(repeating: 2, count: 30))
        #expect(host.state.todos == [Todo(title: "from 1")])
        #expect(host.state.counter == stride(from: 1, to: 60, by: 2).reduce(0, +))
    }
}
