import Foundation
import Moonblade

#if canImport(Glibc)
    import Glibc
#endif

/// Watches plugin folders and reports each folder whose Lua files changed, once per burst of changes.
///
/// On Linux it uses inotify on the folders themselves: editors often save by writing a temporary file
/// and renaming it over the old one, so a finished write (`IN_CLOSE_WRITE`), a rename into the folder
/// (`IN_MOVED_TO`) and a deletion all count. Where inotify is unavailable, or when asked, it polls the
/// files' size, modification time and inode instead. The folder's subfolders (modules `require` loads,
/// `spec/`) count as the folder, those made or moved in while watching too; one moved away no longer
/// does. Paths are watched, not folders: a plugin folder removed, or renamed away, and put back (a
/// checkout, a copy) is watched again, and its return counts as a change; so does the arrival of one
/// not there when watching started, which inotify awaits on its nearest existing parent folder. A
/// folder is watched once however it is spelt (`dir`, `dir/`, `dir/./`, `a/../dir`, a link to it), and
/// reported as it was first given.
///
/// It runs on a thread of its own until ``stop()`` or until it is freed.
public final class PluginWatcher: Sendable {
    private let loop: WatchLoop

    /// Starts watching `directories`, calling `onChange` with a folder once it has been quiet for
    /// `debounce` after a change; `pollingInterval` forces polling at that interval.
    public init(
        directories: [String], debounce: Duration = .milliseconds(50), pollingInterval: Duration? = nil,
        onChange: @escaping @Sendable (_ directory: String) -> Void
    ) {
        var watched: Set<String> = []
        let directories = directories.filter { watched.insert(folderIdentity($0)).inserted }
        let source: any ChangeSource
        if let pollingInterval {
            source = PollingSource(directories: directories, interval: pollingInterval)
        } else if let inotify = InotifySource(directories: directories) {
            source = inotify
        } else {
            source = PollingSource(directories: directories, interval: .milliseconds(250))
        }
        let loop = WatchLoop(debounce: debounce, usesInotify: source is InotifySource, watched: watched, onChange: onChange)
        self.loop = loop
        Thread.detachNewThread { loop.run(source) }
    }

    /// Whether it watches with inotify rather than by polling.
    public var usesInotify: Bool { loop.usesInotify }

    /// Watches `directory` too, from the watcher's next turn (within a tenth of a second); a folder it
    /// watches already, under this spelling or another, is left as it is.
    public func watch(_ directory: String) {
        loop.add(directory)
    }

    /// Stops watching; no callback starts after this returns.
    public func stop() {
        loop.stop()
    }

    deinit {
        loop.stop()
    }
}

/// Where changes come from: waits up to a time for changes and returns the folders that changed.
private protocol ChangeSource: Sendable {
    mutating func changedDirectories(waitingAtMost timeout: Duration) -> [String]
    /// Watches `directory` too (the loop passes only folders not watched yet).
    mutating func add(_ directory: String)
    /// Releases what it holds; called once, when watching stops.
    func close()
}

/// The watcher's thread: collects changes and reports each folder once it has been quiet.
private final class WatchLoop: @unchecked Sendable {
    // @unchecked Sendable: `stopped` is touched only inside `lock`, `added` inside `addedLock`.
    private let lock = Lock()
    private var stopped = false
    /// Its own lock: `onChange` runs inside `lock` and may add a folder (a plugin it loaded).
    private let addedLock = Lock()
    /// Folders to watch from the next turn on; touched only inside `addedLock`.
    private var added: [String] = []
    /// The ``folderIdentity(_:)`` of each folder watched; touched only by the watcher's thread once it runs.
    private var watched: Set<String>
    let debounce: Duration
    let usesInotify: Bool
    let onChange: @Sendable (String) -> Void

    init(debounce: Duration, usesInotify: Bool, watched: Set<String>, onChange: @escaping @Sendable (String) -> Void) {
        self.debounce = debounce
        self.usesInotify = usesInotify
        self.watched = watched
        self.onChange = onChange
    }

    func stop() { lock.withLock { stopped = true } }

    func add(_ directory: String) { addedLock.withLock { added.append(directory) } }

    func run(_ source: some ChangeSource) {
        var source = source
        defer { source.close() }
        let clock = ContinuousClock()
        var lastChange: [String: ContinuousClock.Instant] = [:]
        while !lock.withLock({ stopped }) {
            for directory in addedLock.withLock({ () -> [String] in defer { added = [] }; return added })
            where watched.insert(folderIdentity(directory)).inserted {
                source.add(directory)
            }
            let wait = lastChange.values.map { $0 + debounce - clock.now }.min().map { max($0, .zero) }
            for directory in source.changedDirectories(waitingAtMost: min(wait ?? .milliseconds(100), .milliseconds(100))) {
                lastChange[directory] = clock.now
            }
            for (directory, time) in lastChange where clock.now - time >= debounce {
                lastChange[directory] = nil
                // Checked under the lock, so nothing is reported once `stop()` has returned.
                lock.withLock { if !stopped { onChange(directory) } }
            }
        }
    }
}

/// Changes from inotify watches on the folders.
///
/// It watches paths, not the folders that happen to be there: a plugin folder removed or renamed away
/// (a checkout, a copy put in its place) loses its watches and is watched again, as a change, once a
/// folder is back at its path; a subfolder made or moved in while watching is watched from then on,
/// and one removed or moved away is watched no more. A plugin folder that is not there (at start, or
/// since it went) is awaited by a watch on its nearest existing parent, so its arrival is seen by
/// inotify too.
private struct InotifySource: ChangeSource {
    private let descriptor: Int32
    /// Each watched folder, and the plugin folder it belongs to, by watch.
    private var watches: [Int32: (folder: String, root: String)] = [:]
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

    init?(directories: [String]) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        for directory in directories where track(directory) == .refused {
            Glibc.close(descriptor)
            return nil
        }
    }

    func close() {
        Glibc.close(descriptor)
    }

    mutating func add(_ directory: String) {
        if track(directory) == .refused { refused.insert(directory) }
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
            watches[watch] = (standardized(inner), root)
        }
        return true
    }

    /// Stops watching `folder` and the folders below it, of the plugin folder `root`: it went, or was
    /// moved away, and what happens to it where it is now is none of the plugin's business.
    private mutating func unwatch(_ folder: String, root: String) {
        let folder = standardized(folder)
        unwatch { $0.root == root && ($0.folder == folder || $0.folder.hasPrefix(folder + "/")) }
    }

    /// Stops the watches of folders that `isDropped`.
    private mutating func unwatch(where isDropped: ((folder: String, root: String)) -> Bool) {
        for (watch, watched) in watches where isDropped(watched) {
            watches[watch] = nil
            release(watch)
        }
    }

    /// Drops every watch of the plugin folder `root` and tracks it again: it is watched at once if a
    /// folder is back at its path, awaited otherwise.
    private mutating func lose(_ root: String) {
        unwatch { $0.root == root }
        if track(root) == .refused { refused.insert(root) }
    }

    /// Stops awaiting `root` at `watch`.
    private mutating func stopAwaiting(_ root: String, at watch: Int32) {
        awaiting[watch]?.roots.remove(root)
        if awaiting[watch]?.roots.isEmpty == true {
            awaiting[watch] = nil
            release(watch)
        }
    }

    /// Removes `watch` once nothing uses it.
    private mutating func release(_ watch: Int32) {
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
                let mask = Int32(bitPattern: event.mask)
                if watches[event.wd] != nil { take(mask, name: name, watch: event.wd, into: &changed) }
                if awaiting[event.wd] != nil { takeAwaited(mask, name: name, watch: event.wd, into: &changed) }
            }
        }
    }

    /// Takes an event of a watched folder of plugin files.
    private mutating func take(_ mask: Int32, name: String, watch: Int32, into changed: inout Set<String>) {
        guard let watched = watches[watch] else { return }
        if mask & Int32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
            // The folder went away, or the watch did: a plugin folder is watched again when it is
            // back; a subfolder's removal is a change of its plugin's files.
            if watched.folder == standardized(watched.root) {
                lose(watched.root)
            } else {
                unwatch(watched.folder, root: watched.root)
            }
            changed.insert(watched.root)
        } else if mask & Int32(IN_ISDIR) != 0 {
            // A subfolder made or moved in may hold modules: watch it; one removed or moved away no
            // longer belongs to the plugin. Either is a change. Hidden ones (`.git`) are left out, as
            // when watching starts.
            guard !name.hasPrefix(".") else { return }
            let folder = watched.folder + "/" + name
            if mask & Int32(IN_CREATE | IN_MOVED_TO) != 0 {
                _ = self.watch(folder, root: watched.root)
            } else {
                unwatch(folder, root: watched.root)
            }
            changed.insert(watched.root)
        } else if name.hasSuffix(".lua") {
            changed.insert(watched.root)
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

/// What tells two spellings of one folder apart from two folders: the path with `.`, `..`, repeated and
/// trailing slashes and links resolved (`realpath`), or, for a folder not there yet, made absolute and
/// standardised.
private func folderIdentity(_ path: String) -> String {
    if let resolved = realpath(path, nil) {
        defer { free(resolved) }
        return String(cString: resolved)
    }
    return URL(fileURLWithPath: path).standardizedFileURL.path
}

/// Changes found by comparing the Lua files' size, modification time and inode at an interval.
private struct PollingSource: ChangeSource {
    private(set) var directories: [String]
    let interval: Duration
    private var signatures: [String: [String: [Int]]] = [:]

    init(directories: [String], interval: Duration) {
        self.directories = directories
        self.interval = interval
        for directory in directories { signatures[directory] = Self.signature(of: directory) }
    }

    func close() {}

    mutating func add(_ directory: String) {
        directories.append(directory)
        signatures[directory] = Self.signature(of: directory)
    }

    mutating func changedDirectories(waitingAtMost timeout: Duration) -> [String] {
        Thread.sleep(forTimeInterval: min(timeout, interval).seconds)
        return directories.filter { directory in
            let signature = Self.signature(of: directory)
            defer { signatures[directory] = signature }
            return signature != signatures[directory]
        }
    }

    /// Each Lua file's inode, size and modification time in nanoseconds, in the folder and its subfolders.
    private static func signature(of directory: String) -> [String: [Int]] {
        var signature: [String: [Int]] = [:]
        for folder in folders(in: directory) {
            signature.merge(self.signature(ofFilesIn: folder)) { first, _ in first }
        }
        return signature
    }

    private static func signature(ofFilesIn directory: String) -> [String: [Int]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var signature: [String: [Int]] = [:]
        for name in names where name.hasSuffix(".lua") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            signature[directory + "/" + name] = [
                Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
            ]
        }
        return signature
    }
}

/// `directory` and every folder below it, hidden ones left out.
private func folders(in directory: String) -> [String] {
    var found = [directory]
    let enumerator = FileManager.default.enumerator(
        at: URL(fileURLWithPath: directory), includingPropertiesForKeys: [.isDirectoryKey],
        options: [.skipsHiddenFiles, .skipsPackageDescendants])
    while let url = enumerator?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { found.append(url.path) }
    }
    return found
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
