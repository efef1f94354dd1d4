import ArgumentParser
import MoonbladeHost

/// `moonblade check`: loads and shape-checks plugins without dispatching anything.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load and shape-check plugins without running any of their items.",
        discussion: """
            Prints `ok <name> <version>` for each plugin that loads, and every problem with its \
            place (todo/plugin.lua:12) on standard error: a rule naming an item its own plugin does \
            not have is an error; one naming an item no plugin checked has is a warning (the plugin \
            may be left out, or the name a Swift item of the host app).

            \(ExitStatus.help)
            """
    )

    @Argument(help: "Plugin folders, each with a plugin.lua; or a folder of plugin folders.")
    var plugins: [String]

    func run() async throws {
        // Loading alone: a store would start and run the plugins' `on_start` rules.
        let (loaded, errors, warnings) = try PluginHost<JSONValue>.check(plugins: try PluginFolders.resolve(plugins))
        for plugin in loaded {
            Console.print("ok \(plugin.name) \(plugin.version)")
        }
        errors.forEach(Console.report)
        for warning in warnings {
            Console.printError("warning: \(warning)")
        }
        if !errors.isEmpty {
            throw ExitStatus.pluginFailed.code
        }
    }
}
