import MoonbladeHost

extension Repl {
    /// The `reload` command: reloads every plugin in turn, then tries again each one that did not load,
    /// printing what happened (`reloaded counter (version 1)`, a migration, `loaded cart (version 1)`) on
    /// standard output and a failure, with its place, on standard error.
    func reloadPlugins() async {
        let host = session.host
        for name in host.plugins.map(\.name) {
            await report { _ = try? await host.reload(plugin: name) }
        }
        for directory in host.unloadedDirectories {
            await report { _ = try? host.load(plugin: directory) }
        }
    }

    /// Runs `step` (a reload or a load) and prints the events it reported.
    private func report(_ step: () async -> Void) async {
        // Subscribed first: the host reports every step before it returns, so the stream then holds
        // them all and reading them never waits. Reloads the watcher started meanwhile are its own.
        let events = session.host.reloadEvents()
        await step()
        for await event in events where event.cause == .call {
            guard let line = event.line else { continue }
            switch event.step {
            case .failed, .refused: Console.printError(line)
            default: Console.print(line)
            }
            if event.isOutcome { break }
        }
    }
}
