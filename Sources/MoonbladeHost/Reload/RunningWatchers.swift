import Moonblade

/// The plugin watchers a host made, held weakly: a watcher its owner dropped stops, and is forgotten.
final class RunningWatchers: @unchecked Sendable {
    // @unchecked Sendable: `watchers` is touched only inside `lock`.
    private let lock = Lock()
    private var watchers: [Weak] = []

    private struct Weak {
        weak var watcher: PluginWatcher?
    }

    func add(_ watcher: PluginWatcher) {
        lock.withLock {
            watchers.removeAll { $0.watcher == nil }
            watchers.append(Weak(watcher: watcher))
        }
    }

    /// The watchers still kept by someone.
    var running: [PluginWatcher] {
        lock.withLock { watchers.compactMap(\.watcher) }
    }
}
