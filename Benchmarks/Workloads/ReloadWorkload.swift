import Foundation
import Logging
import MoonbladeHost

/// A plugin host whose plugin `reloaded` the reload benchmark rewrites while a background task keeps
/// dispatching to it, optionally with the host watching the plugin's folder.
///
/// The plugin lives in a temporary folder of its own; its one updater, `reloaded.stamp`, writes the
/// constant of its version into `counter`, so the state shows which version ran last.
public final class ReloadWorkload {
    /// The steady load: one awaited `reloaded.stamp` every `loadInterval`, at most 1,000 per second.
    public static let loadInterval = Duration.milliseconds(1)
    /// How long ``waitUntilActive(_:patience:)`` waits by default: far beyond any debounce measured.
    public static let patience = Duration.seconds(5)

    public let host: PluginHost<CounterState>
    private let rootDirectory: URL
    private let pluginFile: URL
    private let watcher: PluginWatcher?
    private let load: Task<Void, Never>
    /// The constant the plugin file holds now.
    private var constant = 0

    /// Writes the plugin's first version and loads it; with `debounce`, the host watches its folder.
    public init(watchingWith debounce: Duration? = nil) throws {
        rootDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("moonblade-reload-\(UUID().uuidString)")
        let pluginDirectory = rootDirectory.appendingPathComponent("reloaded")
        pluginFile = pluginDirectory.appendingPathComponent("plugin.lua")
        try FileManager.default.createDirectory(at: pluginDirectory, withIntermediateDirectories: true)
        try Self.source(stamping: constant).write(to: pluginFile, atomically: false, encoding: .utf8)

        // Quiet: the host logs every reload at info level, which would fill the benchmark's output.
        var logger = Logger(label: "moonblade.benchmark.reload")
        logger.logLevel = .warning
        let host = try PluginHost<CounterState>(
            plugins: [pluginDirectory.path], configuration: PluginHost.Configuration(logger: logger))
        if let problem = host.loadErrors.first { throw problem }
        self.host = host
        watcher = debounce.map { host.watchPlugins(debounce: $0) }
        let interval = Self.loadInterval
        load = Task {
            while !Task.isCancelled {
                // A failing stamp fails the benchmark's own dispatches too, which report it.
                try? await host.dispatch("reloaded.stamp").value
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Rewrites the plugin file as an editor saves it (a new file renamed over the old one) with the
    /// next constant, and returns that constant.
    public func edit() throws -> Int {
        constant += 1
        let draft = pluginFile.appendingPathExtension("new")
        try Self.source(stamping: constant).write(to: draft, atomically: false, encoding: .utf8)
        guard rename(draft.path, pluginFile.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: pluginFile.path])
        }
        return constant
    }

    /// Dispatches `reloaded.stamp` until the state shows `constant`, that is until the version that
    /// stamps it is the one running; throws if that takes longer than `patience` (with `.zero`, unless
    /// the first dispatch runs it).
    public func waitUntilActive(_ constant: Int, patience: Duration = ReloadWorkload.patience) async throws {
        let deadline = ContinuousClock.now + patience
        while true {
            try await host.dispatch("reloaded.stamp").value
            if host.state.counter == constant { return }
            guard ContinuousClock.now < deadline else {
                throw ReloadNotSeen(constant: constant, patience: patience)
            }
            await Task.yield()
        }
    }

    /// Reloads the plugin from its file, without the watcher.
    public func reload() async throws {
        try await host.reload(plugin: "reloaded")
    }

    /// Stops the load and the watcher and deletes the plugin's folder.
    public func stop() {
        load.cancel()
        watcher?.stop()
        try? FileManager.default.removeItem(at: rootDirectory)
    }

    /// The plugin's source, its updater writing `constant`.
    private static func source(stamping constant: Int) -> String {
        """
        -- Rewritten by the reload benchmark: `stamp` shows which version of this file runs.
        return {
          name = "reloaded",
          version = 1,
          updaters = {
            stamp = function(state)
              state.counter = \(constant)
            end,
          },
        }

        """
    }
}

/// The plugin version stamping `constant` did not become active within `patience`.
struct ReloadNotSeen: Error, CustomStringConvertible {
    var constant: Int
    var patience: Duration
    var description: String {
        "the plugin version stamping \(constant) was not active within \(patience)"
    }
}
