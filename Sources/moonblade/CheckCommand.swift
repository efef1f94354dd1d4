import ArgumentParser
import MoonbladeHost

/// `moonblade check`: loads and shape-checks plugins without dispatching anything.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load and shape-check plugins without running any of their items.",
        discussion: """
            Prints `ok <name> <version>` for each plugin that loads, and every problem with its \
            place (todo/plugin.lua:12) on standard error.

            \(ExitStatus.help)
            """
    )

    @Argument(help: "Plugin folders, each with a plugin.lua.")
    var plugins: [String]

    func run() async throws {
        // The host would log each refused plugin as well; check reports them itself, once each.
        let muted = ConsoleLogHandler.logger("moonblade.host", threshold: LogThreshold(.critical))
        let host = try PluginHost<JSONValue>(plugins: plugins, configuration: .init(logger: muted))
        for plugin in host.plugins {
            Console.print("ok \(plugin.name) \(plugin.version)")
        }
        host.loadErrors.forEach(Console.report)
        if !host.loadErrors.isEmpty {
            throw ExitStatus.pluginFailed.code
        }
    }
}
