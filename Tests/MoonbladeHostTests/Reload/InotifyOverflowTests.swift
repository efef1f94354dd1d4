import Foundation
import Moonblade
import Testing

@testable import MoonbladeHost

#if canImport(Glibc)
import Glibc
#endif

/// How many events an inotify queue holds here (`/proc/sys/fs/inotify/max_queued_events`), if known.
private let inotifyQueueLimit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
    .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }

/// inotify's queue overflowing: events dropped, and every plugin folder looked at afresh.
@Suite("Hostile reloads: inotify's queue overflowing", .serialized)
struct InotifyOverflowTests {
    let scratch = ScratchDirectory()

    /// A folder `name` in the scratch folder, made with a `plugin.lua` unless `made` is false.
    func folder(_ name: String, made: Bool = true) throws -> String {
        let path = scratch.url.appendingPathComponent(name).standardizedFileURL.path
        if made { try write("return {}", to: path + "/plugin.lua") }
        return path
    }

    /// Writes `text` to `file`, making its folder if need be.
    func write(_ text: String, to file: String) throws {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: false, encoding: .utf8)
    }

    /// The folders `source` reports next, waiting for them, with what else it reports soon after
    /// (so that a report of more than the test expects is seen).
    func nextChanges(_ source: inout InotifySource) -> Set<String> {
        var changed: Set<String> = []
        let deadline = ContinuousClock.now + .seconds(30).allowingForSanitizers
        while changed.isEmpty && ContinuousClock.now < deadline {
            changed.formUnion(source.changedDirectories(waitingAtMost: .milliseconds(50)))
        }
        return changed.union(drain(&source))
    }

    /// What `source` reports within a quarter of a second.
    func drain(_ source: inout InotifySource) -> Set<String> {
        var changed: Set<String> = []
        let end = ContinuousClock.now + .milliseconds(250)
        while ContinuousClock.now < end { changed.formUnion(source.changedDirectories(waitingAtMost: .milliseconds(50))) }
        return changed
    }

    /// The overflow fed in through the seam, with the events it stands for still queued: what the
    /// source does at the overflow alone must be enough, and the events taken after it are taken.
    @Test func anOverflowTracksEveryFolderAfreshAndReportsThoseThereOrGone() throws {
        let edited = try folder("edited")
        try FileManager.default.createDirectory(atPath: edited + "/old", withIntermediateDirectories: true)
        let untouched = try folder("untouched")
        let removed = try folder("removed")
        let arrived = try folder("arrived", made: false)
        let missing = try folder("missing", made: false)
        var source = try #require(InotifySource(directories: [edited, untouched, removed, arrived, missing]))
        defer { source.close() }
        #expect(source.changedDirectories(waitingAtMost: .zero).isEmpty)
        #expect(source.watchedFolders(of: edited) == [edited, edited + "/old"])

        // What happens while inotify drops the events.
        try FileManager.default.createDirectory(atPath: edited + "/lib", withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: edited + "/old")
        try FileManager.default.removeItem(atPath: removed)
        try write("return {}", to: arrived + "/plugin.lua")
        var changed: Set<String> = []
        source.take(.overflow, into: &changed)

        // Each folder there, or watched until now, may have changed; one awaited before and since did not.
        #expect(changed == [edited, untouched, removed, arrived])
        #expect(source.watchedFolders(of: edited) == [edited, edited + "/lib"])
        #expect(source.watchedFolders(of: removed).isEmpty)
        #expect(source.watchedFolders(of: arrived) == [arrived])
        // The events queued meanwhile (inotify dropped them in a real overflow) change nothing more.
        _ = drain(&source)
        #expect(source.watchedFolders(of: edited) == [edited, edited + "/lib"])

        // Events after the overflow are all taken: in the new subfolder, in the folder that came, at
        // the folder gone and back, in a folder untouched.
        try write("return 1", to: edited + "/lib/module.lua")
        #expect(nextChanges(&source) == [edited])
        try write("return 1", to: arrived + "/plugin.lua")
        #expect(nextChanges(&source) == [arrived])
        try write("return 1", to: removed + "/plugin.lua")
        #expect(nextChanges(&source) == [removed])
        try write("return 1", to: untouched + "/plugin.lua")
        #expect(nextChanges(&source) == [untouched])
        try write("return {}", to: missing + "/plugin.lua")
        #expect(nextChanges(&source) == [missing])
    }

    /// A real overflow: the watcher's thread is held in its callback while a flood of file changes
    /// fills inotify's queue, and the edits made after it are dropped by inotify.
    @Test(.enabled(if: (inotifyQueueLimit ?? .max) <= 1 << 17, "a queue small enough to flood quickly"))
    func anEditLostInAFloodOfEventsIsReportedAllTheSame() async throws {
        let limit = try #require(inotifyQueueLimit)
        let flooded = try folder("flooded")
        let quiet = try folder("quiet")
        let changes = Locked<[String]>([])
        let held = DispatchSemaphore(value: 0)
        let watcher = PluginWatcher(directories: [flooded, quiet], debounce: .milliseconds(20)) { directory in
            let first = changes.withLock {
                $0.append(directory); return $0.count == 1
            }
            // Holds the watcher's thread: nothing reads inotify's queue meanwhile.
            if first { held.wait() }
        }
        defer {
            held.signal()
            watcher.stop()
        }
        #expect(watcher.usesInotify)
        let reports = { (folder: String) in changes.withLock { $0 }.count { $0 == folder } }

        try write("return 1", to: flooded + "/plugin.lua")
        await waitUntil { reports(flooded) == 1 }
        // Two events per file (made; closed after writing): more than the queue holds.
        for index in 0..<(limit / 2 + 1000) {
            let file = open(flooded + "/flood-\(index).txt", O_CREAT | O_WRONLY, 0o644)
            try #require(file >= 0)
            Glibc.close(file)
        }
        // Dropped by inotify: a subfolder made, an edit of another plugin folder.
        try FileManager.default.createDirectory(atPath: flooded + "/lib", withIntermediateDirectories: true)
        try write("return 2", to: quiet + "/plugin.lua")
        held.signal()

        await waitUntil { reports(quiet) == 1 && reports(flooded) == 2 }
        // The subfolder made during the flood is watched; no edit after the overflow is lost.
        try write("return 3", to: flooded + "/lib/module.lua")
        await waitUntil { reports(flooded) == 3 }
        try write("return 4", to: quiet + "/plugin.lua")
        await waitUntil { reports(quiet) == 2 }
    }
}
