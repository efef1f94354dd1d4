import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Folders coming and going under a watching host: a subfolder moved away stops belonging to its
/// plugin, one made or moved in starts to, and a plugin folder not there yet is awaited by inotify.
@Suite("Hostile reloads: folders coming and going", .serialized)
struct WatchedFolderTests {
    let scratch = ScratchPlugins()

    /// A plugin `marker` whose `version` tells its edits apart: an edit to it, reloaded, shows that the
    /// watcher has taken every event before it.
    func marker(version: Int) -> String {
        "return { name = \"marker\", version = \(version), updaters = { noop = function() end } }"
    }

    /// How many reloads the watcher finished for `plugin`.
    func reloads(of plugin: String, in events: ReloadLog) -> Int {
        events.all.count { $0.hasSuffix("(watcher)") && ($0.hasPrefix("succeeded \(plugin) ") || $0.hasPrefix("failed \(plugin):")) }
    }

    /// Waits until the reloads started have all finished.
    func settle(_ events: ReloadLog) async {
        await waitUntil {
            let all = events.all
            return all.count { $0.hasPrefix("started") } == all.count { !$0.hasPrefix("started") }
        }
    }

    /// However the plugin folder is spelt (`dir/./` is matched to its subfolders' paths all the same).
    @Test(arguments: ["", "/./"])
    func aSubfolderMovedAwayIsWatchedNoMoreAndOneMadeInItsPlaceIs(spelling: String) async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let outside = URL(fileURLWithPath: folder).deletingLastPathComponent().appendingPathComponent("moved-away").path
        try FileManager.default.createDirectory(atPath: folder + "/lib/deep", withIntermediateDirectories: true)
        try "return 1\n".write(toFile: folder + "/lib/notes.lua", atomically: true, encoding: .utf8)
        try "return 2\n".write(toFile: folder + "/lib/deep/more.lua", atomically: true, encoding: .utf8)
        let markerFolder = try scratch.write("marker", marker(version: 1))
        let host = try PluginHost<AppState>(plugins: [folder + spelling, markerFolder])
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        defer { watcher.stop() }
        #expect(watcher.usesInotify)

        // Moved out of the plugin: a change of the plugin's files.
        #expect(rename(folder + "/lib", outside) == 0)
        await waitUntil { reloads(of: "counterx", in: events) == 1 }
        await settle(events)
        try await Task.sleep(for: .milliseconds(300))  // time for a second reload, were there one
        let afterMove = reloads(of: "counterx", in: events)
        // Edited where it is now, the folder and the one inside it are none of the plugin's business.
        try "return 10\n".write(toFile: outside + "/notes.lua", atomically: false, encoding: .utf8)
        try "return 20\n".write(toFile: outside + "/deep/more.lua", atomically: false, encoding: .utf8)
        try marker(version: 2).write(toFile: markerFolder + "/plugin.lua", atomically: false, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded marker v2 (watcher)") }
        try await Task.sleep(for: .milliseconds(300))  // time for a reload of counterx, were there one
        #expect(reloads(of: "counterx", in: events) == afterMove, "\(events.all)")

        // A new folder in its place, holding the module the plugin now takes its version from, is watched.
        try FileManager.default.createDirectory(atPath: folder + "/lib/deep", withIntermediateDirectories: true)
        try "return 4\n".write(toFile: folder + "/lib/deep/numbers.lua", atomically: true, encoding: .utf8)
        try versioned(by: "lib.deep.numbers").write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v4 (watcher)") }
        try "return 8\n".write(toFile: folder + "/lib/deep/numbers.lua", atomically: false, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v8 (watcher)") }

        // The folder moved away, moved back in under another name, is the plugin's again, deep inside too.
        #expect(rename(outside, folder + "/lib2") == 0)
        try versioned(by: "lib2.deep.more").write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v20 (watcher)") }
        try "return 30\n".write(toFile: folder + "/lib2/deep/more.lua", atomically: false, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v30 (watcher)") }
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 1)
    }

    /// The counterx plugin at the version the module `module` returns: an edit to the module shows.
    func versioned(by module: String) -> String {
        "return { name = \"counterx\", version = require(\"\(module)\"), updaters = { add = function(state, p) state.counter = state.counter + p.by end } }"
    }

    @Test func aPluginFolderNotThereAtStartIsAwaitedByInotifyAndLoadedWhenItComes() async throws {
        let present = try scratch.write("counterx", versionedCounter(factor: 1))
        let base = URL(fileURLWithPath: present).deletingLastPathComponent().path
        // Its parent is not there either: the watch is on the nearest folder that is.
        let later = base + "/not-yet/later"
        let host = try PluginHost<AppState>(plugins: [later, present])
        #expect(host.unloadedDirectories == [later])
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        defer { watcher.stop() }
        // Not polling: the folders that are there keep being watched by inotify.
        #expect(watcher.usesInotify)

        let source = { (version: Int) in
            "return { name = \"later\", version = \(version), updaters = { set = function(state) state.counter = \(version) end } }"
        }
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try source(1).write(toFile: later + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("loaded later v1 (watcher)") }
        try await host.dispatch("later.set").value
        #expect(host.state.counter == 1)

        // Watched from then on, as the folder that was there is.
        try source(2).write(toFile: later + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded later v2 (watcher)") }
        try versionedCounter(factor: 5).write(toFile: present + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }

        // Gone with its parent, and back: awaited again, and its return is a reload.
        try FileManager.default.removeItem(atPath: base + "/not-yet")
        await waitUntil { events.all.contains { $0.hasPrefix("failed later: ") } }
        await settle(events)
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try source(3).write(toFile: later + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded later v3 (watcher)") }
        try await host.dispatch("later.set").value
        #expect(host.state.counter == 3)
    }

    /// Plugin folders inside one another: `outer`, and `inner` in `outer/vendor/inner`, watched in
    /// either order. A change in `inner`'s folder reloads both, since it lies in `outer`'s tree
    /// (`outer` takes its version from a module there); a change elsewhere in `outer` reloads it alone.
    @Test(arguments: [false, true])
    func aPluginFolderInsideAnotherReloadsWithIt(innerFirst: Bool) async throws {
        let outerSource = { (offset: Int) in
            "return { name = \"outer\", version = require(\"vendor.inner.numbers\") + \(offset), updaters = { noop = function() end } }"
        }
        let innerSource = { (version: Int) in
            "return { name = \"inner\", version = \(version), updaters = { noop = function() end } }"
        }
        let outer = try scratch.write("outer", outerSource(0))
        let inner = try scratch.write("outer/vendor/inner", innerSource(1))
        try "return 1\n".write(toFile: inner + "/numbers.lua", atomically: true, encoding: .utf8)
        let host = try PluginHost<AppState>(plugins: innerFirst ? [inner, outer] : [outer, inner])
        #expect(host.loadErrors.isEmpty)
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        defer { watcher.stop() }
        #expect(watcher.usesInotify)

        // Outer's own file: outer alone.
        try outerSource(10).write(toFile: outer + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded outer v11 (watcher)") }
        // A module of outer in inner's folder: both.
        try "return 5\n".write(toFile: inner + "/numbers.lua", atomically: false, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded outer v15 (watcher)") && reloads(of: "inner", in: events) == 1 }
        // Inner's own file, in outer's tree too: both.
        try innerSource(2).write(toFile: inner + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded inner v2 (watcher)") && reloads(of: "outer", in: events) == 3 }
        await settle(events)
        try await Task.sleep(for: .milliseconds(300))  // time for more reloads, were there any
        #expect(reloads(of: "outer", in: events) == 3, "\(events.all)")
        #expect(reloads(of: "inner", in: events) == 2, "\(events.all)")

        // Inner's folder gone: a change of both; back, watched for both again.
        try FileManager.default.removeItem(atPath: outer + "/vendor")
        await waitUntil { reloads(of: "outer", in: events) >= 4 && reloads(of: "inner", in: events) >= 3 }
        _ = try scratch.write("outer/vendor/inner", innerSource(3))
        try "return 7\n".write(toFile: inner + "/numbers.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded outer v17 (watcher)") && events.all.contains("succeeded inner v3 (watcher)") }
        await settle(events)
        try await Task.sleep(for: .milliseconds(300))  // the last of the burst's reloads, were there one more
        await settle(events)
        let innerReloads = reloads(of: "inner", in: events)
        try "return 8\n".write(toFile: inner + "/numbers.lua", atomically: false, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded outer v18 (watcher)") && reloads(of: "inner", in: events) > innerReloads }
    }

    /// The watcher alone: a folder not there at start is reported when it comes, by inotify.
    @Test func aWatcherOnAFolderNotThereYetReportsItsArrival() async throws {
        let present = try scratch.write("present", "return {}")
        let missing = URL(fileURLWithPath: present).deletingLastPathComponent().appendingPathComponent("a/b/c").path
        let changes = Locked<[String]>([])
        let watcher = PluginWatcher(directories: [missing, present], debounce: .milliseconds(20)) { directory in
            changes.withLock { $0.append(directory) }
        }
        defer { watcher.stop() }
        #expect(watcher.usesInotify)
        // Made one level at a time, as a slow copy does: each level moves the watch down.
        for level in ["a", "a/b", "a/b/c"] {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: present).deletingLastPathComponent().appendingPathComponent(level).path,
                withIntermediateDirectories: false)
        }
        await waitUntil { changes.withLock { $0 }.contains(missing) }
        try "return 2".write(toFile: missing + "/plugin.lua", atomically: false, encoding: .utf8)
        await waitUntil { changes.withLock { $0 }.count { $0 == missing } >= 2 }
        try "return {}".write(toFile: present + "/plugin.lua", atomically: false, encoding: .utf8)
        await waitUntil { changes.withLock { $0 }.contains(present) }
    }
}
