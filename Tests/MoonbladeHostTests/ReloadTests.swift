import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// A plugin `counterx` whose `add` adds `by` times `factor`, at `version`, with extra fields.
func versionedCounter(factor: Int, version: Int = 1, extra: String = "") -> String {
    """
    return {
      name = "counterx", version = \(version),
      updaters = { add = function(state, p) state.counter = state.counter + p.by * \(factor) end },
      \(extra)
    }
    """
}

/// Collects a host's reload events as their descriptions, marked `(watcher)` when the watcher started
/// the reload.
final class ReloadLog: Sendable {
    let events = Locked<[String]>([])

    init<S>(_ host: PluginHost<S>) {
        let stream = host.reloadEvents()
        Task { [self] in
            for await event in stream {
                let step =
                    switch event.step {
                    case .started(let plugin): "started \(plugin)"
                    case .succeeded(let info): "succeeded \(info.name) v\(info.version)"
                    case .migrated(let plugin, let from, let to): "migrated \(plugin) \(from)->\(to)"
                    case .failed(let plugin, let error): "failed \(plugin): \(error)"
                    case .loaded(let info): "loaded \(info.name) v\(info.version)"
                    case .refused(let plugin, let error): "refused \(plugin): \(error)"
                    }
                let line = event.cause == .watcher ? "\(step) (watcher)" : step
                self.events.withLock { $0.append(line) }
            }
        }
    }

    var all: [String] { events.withLock { $0 } }
}

@Suite("Hot reload")
struct ReloadTests {
    let scratch = ScratchPlugins()

    func write(_ source: String) throws -> String {
        try scratch.write("counterx", source)
    }

    @Test func anEditTakesOverAndTheStateSurvives() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        let events = ReloadLog(host)
        try await host.dispatch("counterx.add", ["by": 2]).value
        _ = try write(versionedCounter(factor: 10))
        let info = try await host.reload(plugin: "counterx")
        #expect(info.version == 1)
        try await host.dispatch("counterx.add", ["by": 2]).value
        #expect(host.state.counter == 22)
        await waitUntil { events.all.count == 2 }
        #expect(events.all == ["started counterx", "succeeded counterx v1"])
    }

    @Test func aBrokenEditKeepsTheOldCodeAndSaysWhereThenAFixRecovers() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        let events = ReloadLog(host)
        _ = try write(versionedCounter(factor: 1).replacingOccurrences(of: "p.by", with: "p.by +"))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.kind == .load)
        #expect(error.location?.description == "counterx/plugin.lua:3")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 1)

        _ = try write(versionedCounter(factor: 3))
        try await host.reload(plugin: "counterx")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 4)
        await waitUntil { events.all.count == 4 }
        #expect(events.all.count == 4)
        #expect(events.all[1].hasPrefix("failed counterx: plugin counterx: counterx/plugin.lua:3:"))
    }

    @Test func aRaisedVersionRunsMigrateAsAnUpdaterOnce() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder], initialState: AppState(counter: 5))
        let events = ReloadLog(host)
        let changes = ChangeRecorder()
        changes.attach(to: host.store)
        _ = try write(
            versionedCounter(
                factor: 1, version: 2,
                extra: """
                    migrate = function(state, from) state.counter = state.counter * 100 + from end,
                    """))
        try await host.reload(plugin: "counterx")
        #expect(host.state.counter == 501)
        #expect(changes.count == 1)
        // The same version again: no migration.
        try await host.reload(plugin: "counterx")
        #expect(host.state.counter == 501)
        await waitUntil { events.all.count == 5 }
        #expect(
            events.all == [
                "started counterx", "migrated counterx 1->2", "succeeded counterx v2", "started counterx",
                "succeeded counterx v2",
            ])
    }

    @Test func aFailingMigrationPutsTheOldVersionBackAndLeavesTheState() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder], initialState: AppState(counter: 5))
        _ = try write(
            versionedCounter(
                factor: 50, version: 2,
                extra: """
                    migrate = function(state, from) state.counter = 0; error("cannot migrate from " .. from) end,
                    """))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.item == "counterx.migrate")
        #expect(error.plugin == "counterx")
        #expect(error.message == "cannot migrate from 1")
        #expect(error.location?.description == "counterx/plugin.lua:4")
        #expect(host.state.counter == 5)
        #expect(host.plugins.map(\.version) == [1])
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 6)
    }

    @Test func aReloadCannotRenameThePlugin() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        _ = try write(versionedCounter(factor: 1).replacingOccurrences(of: "\"counterx\"", with: "\"other\""))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.message.contains("cannot rename plugin counterx to other"))
        #expect(host.plugins.map(\.name) == ["counterx"])
    }

    @Test func removedItemsAreGoneAndNewOnesDispatchable() async throws {
        let folder = try write(versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        _ = try write(
            """
            return { name = "counterx", updaters = { reset = function(state) state.counter = -1 end } }
            """)
        try await host.reload(plugin: "counterx")
        #expect(throws: PluginError.self) { try host.dispatch("counterx.add", ["by": 1]) }
        try await host.dispatch("counterx.reset").value
        #expect(host.state.counter == -1)
    }

    @Test func aRunningSideEffectFinishesOnTheCodeItStartedWith() async throws {
        let gate = Gate()
        let sideEffect = { (tag: String) in
            """
            return { name = "counterx", side_effects = {
              run = function(ctx) ctx.deps.gate.pass(); return "\(tag)" end,
              quick = function(ctx) return "\(tag)" end,
            } }
            """
        }
        let folder = try write(sideEffect("old"))
        let host = try PluginHost<AppState>(plugins: [folder], dependencies: gate.dependencies, configuration: .awaitingPoolWork)
        let running = try host.dispatch("counterx.run", returning: String.self)
        await gate.waitForEntry()  // the side effect is running, awaiting the gate
        _ = try write(sideEffect("new"))
        try await host.reload(plugin: "counterx")
        #expect(try await host.dispatch("counterx.quick", returning: String.self).value == "new")
        await gate.release()
        #expect(try await running.value == "old")
    }

    @Test func aThousandDispatchesDuringReloadsAreEachAppliedExactlyOnce() async throws {
        let source: @Sendable (Int) -> String = { version in
            """
            return {
              name = "counterx", version = \(version),
              updaters = { add = function(state, p) state.counter = state.counter + p.by end },
              side_effects = { add_later = function(ctx, p) ctx.dispatch("counterx.add", p) end },
            }
            """
        }
        let folder = try write(source(1))
        let host = try PluginHost<AppState>(plugins: [folder])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    let item = index.isMultiple(of: 2) ? "counterx.add" : "counterx.add_later"
                    try await host.dispatch(item, ["by": index]).value
                }
            }
            group.addTask {
                for version in 2...21 {
                    _ = try write(source(version))
                    try await host.reload(plugin: "counterx")
                }
            }
            try await group.waitForAll()
        }
        #expect(host.state.counter == (0..<1_000).reduce(0, +))
        #expect(host.plugins.map(\.version) == [21])
    }
}

@Suite("Plugin watcher", .serialized)
struct PluginWatcherTests {
    let scratch = ScratchPlugins()

    /// Runs `body` with a host on a counterx plugin being watched (by inotify, or by polling).
    func withWatchedHost(polling: Bool, _ body: (PluginHost<AppState>, String, ReloadLog) async throws -> Void)
        async throws
    {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20), pollingInterval: polling ? .milliseconds(20) : nil)
        #expect(watcher.usesInotify == !polling)
        try await body(host, folder, events)
        watcher.stop()
    }

    func addTen(_ host: PluginHost<AppState>) async throws -> Int {
        let before = host.state.counter
        try await host.dispatch("counterx.add", ["by": 10]).value
        return host.state.counter - before
    }

    @Test(arguments: [false, true])
    func aSavedEditIsPickedUp(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            try versionedCounter(factor: 2).write(toFile: folder + "/plugin.lua", atomically: false, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
            #expect(try await addTen(host) == 20)
        }
    }

    @Test(arguments: [false, true])
    func aRenameBasedSaveIsPickedUp(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            // What editors do: write a temporary file next to it, then rename it over the plugin.
            try versionedCounter(factor: 3).write(toFile: folder + "/.plugin.lua.swp", atomically: false, encoding: .utf8)
            #expect(rename(folder + "/.plugin.lua.swp", folder + "/plugin.lua") == 0)
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
            #expect(try await addTen(host) == 30)
        }
    }

    @Test func aStoppedWatcherGivesItsInotifyDescriptorBack() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        func openDescriptors() -> Int {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return descriptors.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify"
            }.count
        }
        let before = openDescriptors()
        for _ in 0..<20 {
            let watcher = PluginWatcher(directories: [folder]) { _ in }
            #expect(watcher.usesInotify)
            watcher.stop()
        }
        await waitUntil { openDescriptors() <= before }
    }

    @Test func aDeletedPluginFileKeepsTheOldCodeUntilItComesBack() async throws {
        try await withWatchedHost(polling: false) { host, folder, events in
            try FileManager.default.removeItem(atPath: folder + "/plugin.lua")
            await waitUntil { events.all.contains { $0.hasPrefix("failed counterx: ") } }
            #expect(events.all.contains { $0.contains("cannot read") })
            #expect(try await addTen(host) == 10)
            try versionedCounter(factor: 4).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
            #expect(try await addTen(host) == 40)
        }
    }
}
