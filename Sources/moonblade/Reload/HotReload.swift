import MoonbladeHost

/// Hot reload as `run --watch` and `repl` offer it: reloads a plugin whenever its folder's Lua files
/// change and reports each of those reloads on standard error, until ``stop()``. (A reload the repl's
/// `reload` command asks for is that command's to report.)
final class HotReload: Sendable {
    private let watcher: PluginWatcher
    private let reporting: Task<Void, Never>

    init(_ host: PluginHost<JSONValue>) {
        // Subscribed before the watcher starts, so no reload goes unreported.
        let events = host.reloadEvents()
        reporting = Task {
            for await event in events where event.cause == .watcher {
                if let line = event.line { Console.printError(line) }
            }
        }
        watcher = host.watchPlugins()
    }

    func stop() {
        watcher.stop()
        reporting.cancel()
    }
}
