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
/// Plugin folders may lie inside one another (`a` and `a/vendor/b`): a change in `b`'s folder reports
/// both, since it lies in `a`'s tree too (`a` may `require` a module from there), and a change elsewhere
/// in `a` reports `a` alone. Should inotify drop events (its queue overflowed, under a flood of file
/// changes), every folder is looked at afresh, its subfolders watched or dropped as they are now, and
/// reported as changed: a lost event never leaves an edit unseen.
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
protocol ChangeSource: Sendable {
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
            for directory in addedLock.withLock({ () -> [String] in
                defer { added = [] }; return added
            })
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
func folders(in directory: String) -> [String] {
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
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
