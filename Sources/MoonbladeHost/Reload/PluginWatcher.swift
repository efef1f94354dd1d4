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
/// files' size, modification time and inode instead. The subfolders a folder has when watching starts
/// (modules `require` loads, `spec/`) count as the folder; one made later is not seen until a restart.
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
        let source: any ChangeSource
        if let pollingInterval {
            source = PollingSource(directories: directories, interval: pollingInterval)
        } else if let inotify = InotifySource(directories: directories) {
            source = inotify
        } else {
            source = PollingSource(directories: directories, interval: .milliseconds(250))
        }
        let loop = WatchLoop(debounce: debounce, usesInotify: source is InotifySource, onChange: onChange)
        self.loop = loop
        Thread.detachNewThread { loop.run(source) }
    }

    /// Whether it watches with inotify rather than by polling.
    public var usesInotify: Bool { loop.usesInotify }


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
    /// Releases what it holds; called once, when watching stops.
    func close()
}

/// The watcher's thread: collects changes and reports each folder once it has been quiet.
private final class WatchLoop: @unchecked Sendable {
    // @unchecked Sendable: `stopped` is touched only inside `lock`.
    private let lock = Lock()
    private var stopped = false
    let debounce: Duration
    let usesInotify: Bool
    let onChange: @Sendable (String) -> Void

    init(debounce: Duration, usesInotify: Bool, onChange: @escaping @Sendable (String) -> Void) {
        self.debounce = debounce
        self.usesInotify = usesInotify
        self.onChange = onChange
    }

    func stop() { lock.withLock { stopped = true } }

    func run(_ source: some ChangeSource) {
        var source = source
        defer { source.close() }
        let clock = ContinuousClock()
        var lastChange: [String: ContinuousClock.Instant] = [:]
        while !lock.withLock({ stopped }) {
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
private struct InotifySource: ChangeSource {
    private let descriptor: Int32
    private var directoriesByWatch: [Int32: String] = [:]

    init?(directories: [String]) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        for directory in directories {
            for folder in folders(in: directory) {
                let watch = inotify_add_watch(descriptor, folder, events)
                guard watch >= 0 else {
                    Glibc.close(descriptor)
                    return nil
                }
                directoriesByWatch[watch] = directory
            }
        }
    }

    func close() {
        Glibc.close(descriptor)
    }

    mutating func changedDirectories(waitingAtMost timeout: Duration) -> [String] {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // Rounded up: a wait under a millisecond must not become a poll that returns at once.
        guard poll(&request, 1, Int32((timeout.seconds * 1000).rounded(.up))) > 0 else { return [] }
        var changed: Set<String> = []
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
                if name.hasSuffix(".lua"), let directory = directoriesByWatch[event.wd] {
                    changed.insert(directory)
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        return Array(changed)
    }
}

/// Changes found by comparing the Lua files' size, modification time and inode at an interval.
private struct PollingSource: ChangeSource {
    let directories: [String]
    let interval: Duration
    private var signatures: [String: [String: [Int]]] = [:]

    init(directories: [String], interval: Duration) {
        self.directories = directories
        self.interval = interval
        for directory in directories { signatures[directory] = Self.signature(of: directory) }
    }

    func close() {}

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
