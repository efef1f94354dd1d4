import Foundation
import Moonblade

#if canImport(Glibc)
import Glibc
#endif

/// Changes from inotify watches on the folders.
///
/// It watches paths, not the folders that happen to be there: a plugin folder removed or renamed away
/// (a checkout, a copy put in its place) loses its watches and is watched again, as a change, once a
/// folder is back at its path; a subfolder made or moved in while watching is watched from then on,
/// and one removed or moved away is watched no more. A plugin folder that is not there (at start, or
/// since it went) is awaited by a watch on its nearest existing parent, so its arrival is seen by
/// inotify too.
///
/// Plugin folders may lie inside one another (`a` and `a/vendor/b`): inotify gives one watch per
/// folder, so a watch stands for every plugin folder whose tree holds its folder, and an event there
/// is a change of each of them (a module of `a` may live in `b`'s folder).
///
/// When inotify's queue overflows, the events it dropped are unknown: every plugin folder is tracked
/// again from what is on disk (see ``recover(into:)``) and reported as changed.
struct InotifySource: ChangeSource {
    private let descriptor: Int32
    /// Every plugin folder given, as given, in order.
    private var roots: [String] = []
    /// For each watch, the plugin folders whose tree holds its folder, and the folder's standardized
    /// path as seen from each (a plugin folder reached through a link sees it under another path).
    private var watches: [Int32: [String: String]] = [:]
    /// The nearest existing parent of plugin folders that are not there, and those plugin folders, by
    /// watch (which may be one of `watches` too, when that parent is a watched folder).
    private var awaiting: [Int32: (folder: String, roots: Set<String>)] = [:]
    /// Plugin folders inotify refused to watch, or to await: looked for again at every turn.
    private var refused: Set<String> = []

    private static let events = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Whether a plugin folder is watched, awaited at a parent, or neither since inotify refused.
    private enum Tracking {
        case watched, awaited, refused
    }

    /// Watches `directories`; nil if inotify is unavailable or refuses one of them.
    init?(directories: [String]) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        roots = directories
        for directory in directories where track(directory) == .refused {
            Glibc.close(descriptor)
            return nil
        }
    }

    func close() {
        Glibc.close(descriptor)
    }

    mutating func add(_ directory: String) {
        roots.append(directory)
        if track(directory) == .refused { refused.insert(directory) }
    }

    /// The folders watched as part of the plugin folder `root`, by their standardized paths.
    func watchedFolders(of root: String) -> Set<String> {
        Set(watches.values.compactMap { $0[root] })
    }

    /// Watches the plugin folder `root` if it is there, or else its nearest existing parent, to see it
    /// come.
    private mutating func track(_ root: String) -> Tracking {
        while true {
            if watch(root, root: root) { return .watched }
            // There after all (made since the try), or there and refused.
            if FileReader.isFolder(root) { return watch(root, root: root) ? .watched : .refused }
            guard let parent = nearestExistingParent(of: root) else { return .refused }
            let watch = inotify_add_watch(descriptor, parent, Self.events)
            guard watch >= 0 else { return .refused }
            awaiting[watch, default: (parent, [])].roots.insert(root)
            // What was made between the look and the watch raised no event here: look again.
            if !FileReader.isFolder(root) && nearestExistingParent(of: root) == parent { return .awaited }
            stopAwaiting(root, at: watch)
        }
    }

    /// Tracks the plugin folder `root` afresh from what is on disk, whatever is known of it: it went
    /// and may be back, or events about it were lost. The watches of its folders still there are kept
    /// (inotify gives a folder already watched its watch back, so events queued for it are still
    /// taken); those of folders gone, or no longer at its path, are dropped; new ones are added.
    private mutating func retrack(_ root: String) {
        var previous: [Int32] = []
        for (watch, folders) in watches where folders[root] != nil {
            watches[watch]?[root] = nil
            previous.append(watch)
        }
        for (watch, awaited) in awaiting where awaited.roots.contains(root) {
            awaiting[watch]?.roots.remove(root)
            previous.append(watch)
        }
        refused.remove(root)
        if track(root) == .refused { refused.insert(root) }
        // Only now: a watch released and taken again would be a new one, its queued events lost.
        for watch in previous { release(watch) }
    }

    /// Watches `folder` and the folders below it as part of the plugin folder `root`; false if
    /// `folder` itself cannot be watched.
    private mutating func watch(_ folder: String, root: String) -> Bool {
        for (index, inner) in folders(in: folder).enumerated() {
            let watch = inotify_add_watch(descriptor, inner, Self.events)
            guard watch >= 0 else {
                if index == 0 { return false }
                continue
            }
            // Standardized, so a subfolder found below it matches by its path however `root` was spelt.
            watches[watch, default: [:]][root] = standardized(inner)
        }
        return true
    }

    /// Stops watching `folder` and the folders below it as part of the plugin folder `root`: it went,
    /// or was moved away, and what happens to it where it is now is none of the plugin's business.
    private mutating func unwatch(_ folder: String, root: String) {
        let folder = standardized(folder)
        for (watch, folders) in watches {
            guard let inner = folders[root], inner == folder || inner.hasPrefix(folder + "/") else { continue }
            watches[watch]?[root] = nil
            release(watch)
        }
    }

    /// Stops awaiting `root` at `watch`.
    private mutating func stopAwaiting(_ root: String, at watch: Int32) {
        awaiting[watch]?.roots.remove(root)
        release(watch)
    }

    /// Forgets `watch` for good, and removes it, once no plugin folder uses it.
    private mutating func release(_ watch: Int32) {
        if watches[watch]?.isEmpty == true { watches[watch] = nil }
        if awaiting[watch]?.roots.isEmpty == true { awaiting[watch] = nil }
        if watches[watch] == nil && awaiting[watch] == nil { inotify_rm_watch(descriptor, watch) }
    }

    mutating func changedDirectories(waitingAtMost timeout: Duration) -> [String] {
        var changed: Set<String> = []
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // Rounded up: a wait under a millisecond must not become a poll that returns at once.
        if poll(&request, 1, Int32((timeout.seconds * 1000).rounded(.up))) > 0 {
            readEvents(into: &changed)
        }
        for root in refused {
            switch track(root) {
            case .watched:
                refused.remove(root)
                changed.insert(root)
            case .awaited: refused.remove(root)
            case .refused: break
            }
        }
        return Array(changed)
    }

    /// Reads the events waiting and adds the plugin folders they concern to `changed`.
    private mutating func readEvents(into changed: inout Set<String>) {
        let bufferSize = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, bufferSize)
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size)
                let name = event.len > 0 ? String(cString: nameStart.assumingMemoryBound(to: CChar.self)) : ""
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                take(InotifyEvent(watch: event.wd, mask: event.mask, name: name), into: &changed)
            }
        }
    }

    /// Takes one event, in the order inotify queued it, adding the plugin folders it concerns to `changed`.
    mutating func take(_ event: InotifyEvent, into changed: inout Set<String>) {
        let mask = Int32(bitPattern: event.mask)
        if mask & Int32(IN_Q_OVERFLOW) != 0 { return recover(into: &changed) }
        if watches[event.watch] != nil { takeWatched(mask, name: event.name, watch: event.watch, into: &changed) }
        if awaiting[event.watch] != nil { takeAwaited(mask, name: event.name, watch: event.watch, into: &changed) }
    }

    /// Takes an overflow of inotify's queue: the events it dropped are unknown, so any plugin folder
    /// may have changed, had subfolders made or removed, come or gone. Each is tracked afresh from
    /// what is on disk, and each one there now, or watched until now, is a change (a reload of code
    /// that did not change is harmless). Events queued after the overflow are taken as they come:
    /// the folders still there kept their watches.
    private mutating func recover(into changed: inout Set<String>) {
        for root in roots {
            let wasWatched = watches.values.contains { $0[root] != nil }
            retrack(root)
            if wasWatched || watches.values.contains(where: { $0[root] != nil }) { changed.insert(root) }
        }
    }

    /// Takes an event of a watched folder of plugin files, for each plugin folder whose tree holds it.
    private mutating func takeWatched(_ mask: Int32, name: String, watch: Int32, into changed: inout Set<String>) {
        guard let folders = watches[watch] else { return }
        for (root, folder) in folders {
            if mask & Int32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                // The folder went away, or the watch did: a plugin folder is watched again when it is
                // back; a subfolder's removal is a change of its plugin's files.
                if folder == standardized(root) {
                    retrack(root)
                } else {
                    unwatch(folder, root: root)
                }
                changed.insert(root)
            } else if mask & Int32(IN_ISDIR) != 0 {
                // A subfolder made or moved in may hold modules: watch it; one removed or moved away no
                // longer belongs to the plugin. Either is a change. Hidden ones (`.git`) are left out, as
                // when watching starts.
                guard !name.hasPrefix(".") else { continue }
                let inner = folder + "/" + name
                if mask & Int32(IN_CREATE | IN_MOVED_TO) != 0 {
                    _ = self.watch(inner, root: root)
                } else {
                    unwatch(inner, root: root)
                }
                changed.insert(root)
            } else if name.hasSuffix(".lua") {
                changed.insert(root)
            }
        }
    }

    /// Takes an event of a folder where missing plugin folders are awaited: an entry made there that
    /// leads to one of them, or the folder itself gone, has them tracked again; one that arrived is a
    /// change.
    private mutating func takeAwaited(_ mask: Int32, name: String, watch: Int32, into changed: inout Set<String>) {
        guard let (parent, roots) = awaiting[watch] else { return }
        let gone = mask & Int32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0
        guard gone || mask & Int32(IN_CREATE | IN_MOVED_TO) != 0 else { return }
        let entry = parent == "/" ? "/" + name : parent + "/" + name
        for root in roots where gone || standardized(root) == entry || standardized(root).hasPrefix(entry + "/") {
            stopAwaiting(root, at: watch)
            switch track(root) {
            case .watched: changed.insert(root)
            case .awaited: break
            case .refused: refused.insert(root)
            }
        }
    }
}

/// One inotify event: the watch it came from, what happened, and the name of the entry it concerns in
/// the watched folder ("" when it concerns the folder itself).
struct InotifyEvent: Sendable {
    let watch: Int32
    let mask: UInt32
    let name: String

    /// inotify's queue overflowed: events were dropped from here on until there was room again.
    static let overflow = InotifyEvent(watch: -1, mask: UInt32(IN_Q_OVERFLOW), name: "")
}

/// `path` made absolute, with `.`, `..` and repeated slashes resolved as written (links left as they are).
private func standardized(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}

/// The nearest folder above `path` that exists, or nil if none does (not even `/`).
private func nearestExistingParent(of path: String) -> String? {
    var components = URL(fileURLWithPath: standardized(path)).pathComponents
    while components.count > 1 {
        components.removeLast()
        let parent = components.count == 1 ? "/" : "/" + components.dropFirst().joined(separator: "/")
        if FileReader.isFolder(parent) { return parent }
    }
    return nil
}
