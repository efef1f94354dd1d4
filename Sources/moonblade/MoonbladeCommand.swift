import ArgumentParser

/// `moonblade`: runs Lua plugins in a Moonblade store from the command line.
@main
struct MoonbladeCommand: AsyncParsableCommand {
    /// What `moonblade --version` prints: the release, and the Lua it embeds.
    static let version = "moonblade 0.1.0 (Lua 5.4)"

    static let configuration = CommandConfiguration(
        commandName: "moonblade",
        abstract: "Run, explore and check Moonblade Lua plugins.",
        discussion: """
            Results go to standard output, diagnostics to standard error. Plugin errors name the \
            plugin and the place in its code (todo/plugin.lua:12).

            \(ExitStatus.help)
            """,
        version: MoonbladeCommand.version,
        subcommands: [
            RunCommand.self, ReplCommand.self, CheckCommand.self, TestCommand.self, TypesCommand.self,
            ReplayCommand.self, JournalCommand.self,
        ]
    )
}
