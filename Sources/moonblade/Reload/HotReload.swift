import MoonbladeHost

/// Hot reload as `run --watch` and `repl` offer it: reloads a plugin whenever its folder's Lua files
/// change and reports each reload on standard error, until ``stop()``.
final class HotReload: Sendable {
    let reporter = ReloadReporter()
    private let watcher: PluginWatcher
    private let reporting: Task<Void, Never>

    init(_ host: PluginHost<JSONValue>) {
        // Subscribed before the watcher starts, so no reload goes unreported.
        let events = host.reloadEvents()
        reporting = Task { [reporter] in
            for await event in events {
                await reporter.report(event)
            }
        }
        watcher = host.watchPlugins()
    }

    func stop() {
        watcher.stop()
        reporting.cancel()
    }
}
