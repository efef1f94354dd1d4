import MoonbladeHost

extension Repl {
    /// The `reload` command: reloads every plugin in turn, printing what happened (`reloaded counter
    /// (version 1)`, a migration) on standard output and a failure, with its place, on standard error.
    func reloadPlugins() async {
        for name in session.host.plugins.map(\.name) {
            // Subscribed first: the host reports every step before `reload` returns, so the stream then
            // holds them all and reading them never waits. Reloads the watcher started meanwhile are its own.
            let events = session.host.reloadEvents()
            _ = try? await session.host.reload(plugin: name)
            for await event in events where event.cause == .call && event.plugin == name {
                guard let line = event.line else { continue }
                if case .failed = event.step {
                    Console.printError(line)
                } else {
                    Console.print(line)
                }
                if event.isOutcome { break }
            }
        }
    }
}
