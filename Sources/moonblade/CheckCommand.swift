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
        // Loading alone: a store would start and run the plugins' `on_start` rules.
        let (loaded, errors) = try PluginHost<JSONValue>.check(plugins: plugins)
        for plugin in loaded {
            Console.print("ok \(plugin.name) \(plugin.version)")
        }
        errors.forEach(Console.report)
        if !errors.isEmpty {
            throw ExitStatus.pluginFailed.code
        }
    }
}
