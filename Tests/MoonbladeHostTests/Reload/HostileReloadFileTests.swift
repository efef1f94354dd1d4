import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Reloads as editors, file systems and impatient authors cause them: whatever is saved, the working
/// version keeps running until a whole, valid one replaces it, and the state survives.
@Suite("Hostile reloads: files", .serialized)
struct HostileReloadFileTests {
    let scratch = ScratchPlugins()

    /// Runs `body` with a watched host on a counterx plugin (`add` multiplies by 1), by inotify or polling.
    func withWatchedHost(
        polling: Bool, _ body: (PluginHost<AppState>, String, ReloadLog) async throws -> Void
    ) async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20), pollingInterval: polling ? .milliseconds(20) : nil)
        defer { watcher.stop() }
        try await body(host, folder, events)
    }

    /// What `counterx.add` with `by = 10` adds now.
    func addTen(_ host: PluginHost<AppState>) async throws -> Int {
        let before = host.state.counter
        try await host.dispatch("counterx.add", ["by": 10]).value
        return host.state.counter - before
    }

    /// Waits for the watcher's `count`-th outcome and returns it.
    func outcome(_ count: Int, of events: ReloadLog) async throws -> String {
        let outcomes = { events.all.filter { $0.hasSuffix("(watcher)") && !$0.hasPrefix("started") } }
        await waitUntil { outcomes().count >= count }
        return try #require(outcomes().dropFirst(count - 1).first)
    }

    @Test(arguments: [false, true])
    func aFileSavedInPiecesKeepsTheWorkingVersionUntilItIsWhole(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            let whole = versionedCounter(factor: 7, version: 2)
            // Close-on-exec: a process another test starts meanwhile would otherwise inherit the
            // descriptor, and its exit would close the file for writing (IN_CLOSE_WRITE) half-written.
            let descriptor = open(folder + "/plugin.lua", O_WRONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            // Truncated first, as `>` in a shell does, then written in two pieces with pauses, as a
            // slow writer (a sync tool, a copy over the network) does. A poller sees each piece;
            // inotify waits for the file to be closed.
            try file.truncate(atOffset: 0)
            try file.synchronize()
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await addTen(host) == 10)
            try file.write(contentsOf: Data(whole.prefix(whole.count / 2).utf8))
            try file.synchronize()
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await addTen(host) == 10)
            try file.write(contentsOf: Data(whole.dropFirst(whole.count / 2).utf8))
            try file.close()
            await waitUntil { events.all.contains("succeeded counterx v2 (watcher)") }
            #expect(try await addTen(host) == 70)
            #expect(host.state.counter == 90)
            // What failed on the way failed with the file's place, or because there was no plugin yet.
            let failures = events.all.filter { $0.hasPrefix("failed") }
            #expect(failures.allSatisfy { $0.contains("counterx/plugin.lua:") }, "\(failures)")
            #expect(polling || failures.isEmpty, "\(failures)")
        }
    }

    @Test(arguments: [false, true])
    func aPluginFolderRemovedAndMadeAgainIsWatchedAgain(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            try FileManager.default.removeItem(atPath: folder)
            let gone = try await outcome(1, of: events)
            #expect(gone.hasPrefix("failed counterx: ") && gone.contains("cannot read"), "\(gone)")
            #expect(try await addTen(host) == 10)
            // A checkout or a copy puts it back: a new folder at the same path.
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try versionedCounter(factor: 5).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
            #expect(try await addTen(host) == 50)
            // And edits to it go on being seen.
            try versionedCounter(factor: 6).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.filter { $0 == "succeeded counterx v1 (watcher)" }.count == 2 }
            #expect(try await addTen(host) == 60)
        }
    }

    @Test(arguments: [false, true])
    func aPluginFolderRenamedAwayAndBackIsStillWatched(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            let away = folder + "-away"
            #expect(rename(folder, away) == 0)
            try versionedCounter(factor: 2).write(toFile: away + "/plugin.lua", atomically: true, encoding: .utf8)
            try await Task.sleep(for: .milliseconds(200))
            // Whatever the watcher made of it, the running version is untouched.
            #expect(try await addTen(host) == 10)
            #expect(rename(away, folder) == 0)
            try versionedCounter(factor: 3, version: 2).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded counterx v2 (watcher)") }
            #expect(try await addTen(host) == 30)
        }
    }

    @Test(arguments: [false, true])
    func aModuleInASubfolderMadeWhileWatchingIsWatched(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, folder, events in
            // The new version moves its arithmetic into a module in a folder that did not exist.
            try FileManager.default.createDirectory(atPath: folder + "/lib/deep", withIntermediateDirectories: true)
            try "return { factor = 4 }\n".write(toFile: folder + "/lib/deep/numbers.lua", atomically: true, encoding: .utf8)
            try """
            local numbers = require("lib.deep.numbers")
            return { name = "counterx", updaters = {
              add = function(state, p) state.counter = state.counter + p.by * numbers.factor end,
            } }
            """.write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
            #expect(try await addTen(host) == 40)
            let succeeded = events.all.filter { $0 == "succeeded counterx v1 (watcher)" }.count
            // The module alone changes.
            try "return { factor = 8 }\n".write(toFile: folder + "/lib/deep/numbers.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.filter { $0 == "succeeded counterx v1 (watcher)" }.count > succeeded }
            #expect(try await addTen(host) == 80)
        }
    }

    @Test(arguments: [false, true])
    func aPluginLoadedWhileWatchingIsWatchedToo(polling: Bool) async throws {
        try await withWatchedHost(polling: polling) { host, _, events in
            let later = try scratch.write(
                "later",
                """
                return { name = "later", updaters = { set = function(state) state.counter = 1 end } }
                """)
            try host.load(plugin: later)
            // The watcher takes the folder on at its next turn, within a tenth of a second.
            try await Task.sleep(for: .milliseconds(500))
            try """
            return { name = "later", version = 2, updaters = { set = function(state) state.counter = 2 end } }
            """.write(toFile: later + "/plugin.lua", atomically: true, encoding: .utf8)
            await waitUntil { events.all.contains("succeeded later v2 (watcher)") }
            try await host.dispatch("later.set").value
            #expect(host.state.counter == 2)
        }
    }

    @Test func aPluginBrokenAtStartIsLoadedByTheWatcherOnceFixedThenReloaded() async throws {
        let folder = try scratch.write("counterx", "return {\n  name = \"counterx\",\n  updaters = { add = function() end end },\n}\n")
        let host = try PluginHost<AppState>(plugins: [folder])
        #expect(host.unloadedDirectories == [folder])
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        defer { watcher.stop() }
        try versionedCounter(factor: 2).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("loaded counterx v1 (watcher)") }
        try versionedCounter(factor: 3, version: 2).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v2 (watcher)") }
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 3)
    }

    @Test func twoHostsWatchingOneFolderEachTakeTheEditAndKeepTheirOwnState() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let first = try PluginHost<AppState>(plugins: [folder], initialState: AppState(counter: 100))
        let second = try PluginHost<AppState>(plugins: [folder], initialState: AppState(counter: 200))
        let (firstEvents, secondEvents) = (ReloadLog(first), ReloadLog(second))
        let watchers = [first.watchPlugins(debounce: .milliseconds(20)), second.watchPlugins(debounce: .milliseconds(20))]
        defer { watchers.forEach { $0.stop() } }
        try versionedCounter(factor: 1).replacingOccurrences(of: "p.by", with: "p.by +")
            .write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        for events in [firstEvents, secondEvents] {
            await waitUntil { events.all.contains { $0.hasPrefix("failed counterx: plugin counterx: counterx/plugin.lua:3:") } }
        }
        try versionedCounter(factor: 9).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        for events in [firstEvents, secondEvents] {
            await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
        }
        #expect(try await addTen(first) == 90)
        #expect(try await addTen(second) == 90)
        #expect(first.state.counter == 190)
        #expect(second.state.counter == 290)
    }

    @Test func aBurstOfSavesEndsOnTheLastOneWithNoDispatchLost() async throws {
        try await withWatchedHost(polling: false) { host, folder, events in
            let dispatched = Task {
                var total = 0
                for _ in 0..<200 {
                    total += try await addTen(host)
                }
                return total
            }
            for factor in 2...60 {
                // Every other save is broken; the last is whole.
                let source = versionedCounter(factor: factor)
                try (factor.isMultiple(of: 2) || factor == 60 ? source : String(source.dropLast(3)))
                    .write(toFile: folder + "/plugin.lua", atomically: factor.isMultiple(of: 3), encoding: .utf8)
                try await Task.sleep(for: .milliseconds(factor.isMultiple(of: 7) ? 30 : 1))
            }
            let total = try await dispatched.value
            try await Task.sleep(for: .milliseconds(300))
            let settled = {
                let all = events.all
                return all.count { $0.hasPrefix("started") } == all.count { !$0.hasPrefix("started") }
            }
            await waitUntil(settled)
            #expect(try await addTen(host) == 600)
            // Every dispatch applied exactly once, on whichever version was running.
            #expect(host.state.counter == total + 600)
            #expect(!events.all.contains { $0.hasPrefix("failed") && !$0.contains("counterx/plugin.lua:") })
        }
    }

    /// Other spellings of one folder: with a slash, with `.` and `..`, through a link.
    func spellings(of folder: String) throws -> [String] {
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        let link = parent + "/linked"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        let name = URL(fileURLWithPath: folder).lastPathComponent
        return [folder + "/", folder + "//./", "\(parent)/\(name)/../\(name)", link, link + "/"]
    }

    /// Each spelling watched as a folder of its own reported each change once per spelling: a reload
    /// for each, or a reload and a duplicate refused.
    @Test(arguments: [false, true])
    func aSecondSpellingOfAWatchedFolderAddsNoWatcher(polling: Bool) async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let spellings = try spellings(of: folder)
        let changes = Locked<[String]>([])
        let watcher = PluginWatcher(
            directories: [folder] + spellings.prefix(2), debounce: .milliseconds(20),
            pollingInterval: polling ? .milliseconds(20) : nil
        ) { directory in changes.withLock { $0.append(directory) } }
        defer { watcher.stop() }
        for spelling in spellings { watcher.watch(spelling) }
        try await Task.sleep(for: .milliseconds(300))  // added folders are taken on the watcher's next turn
        try versionedCounter(factor: 2).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { !changes.withLock { $0 }.isEmpty }
        try await Task.sleep(for: .milliseconds(300))  // time for a second report, were there one
        #expect(changes.withLock { $0 } == [folder])
    }

    /// A host given one plugin folder twice refuses the second as a duplicate, and its watcher watched
    /// both: a save reloaded the plugin and tried, and refused, the duplicate again.
    @Test func aHostGivenOneFolderUnderTwoSpellingsReloadsOncePerSave() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder] + spellings(of: folder))
        #expect(host.loadErrors.map(\.kind) == Array(repeating: .duplicate, count: 5))
        let events = ReloadLog(host)
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        defer { watcher.stop() }
        try versionedCounter(factor: 3).write(toFile: folder + "/plugin.lua", atomically: true, encoding: .utf8)
        await waitUntil { events.all.contains("succeeded counterx v1 (watcher)") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(events.all == ["started counterx (watcher)", "succeeded counterx v1 (watcher)"])
        #expect(try await addTen(host) == 30)
    }
}
