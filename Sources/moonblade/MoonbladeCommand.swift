import ArgumentParser
import Foundation
import MoonbladeHost

/// `moonblade`: runs Lua plugins in a Moonblade store from the command line.
@main
struct MoonbladeCommand: AsyncParsableCommand {
    /// What `moonblade --version` prints: the release, and the Lua it embeds.
    static let version = "moonblade 0.2.0 (Lua 5.4)"

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
            ReplayCommand.self, JournalCommand.self, NewCommand.self, ServeCommand.self,
        ]
    )
}

extension MoonbladeCommand {
    /// Refuses a command line with an argument that is not UTF-8 (exit 64), then runs the command (a
    /// negative number after `--dispatch` or `--post` is a payload: ``NegativePayloads``).
    ///
    /// Swift hands arguments over with such bytes replaced by U+FFFD, so a payload or a path would
    /// change on its way in without a word. SIGPIPE is ignored: a closed standard output must not end
    /// a run before it saves its state (``Console`` drops what it cannot write).
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let arguments = (0..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0] }
        if let bad = arguments.firstIndex(where: { String(validatingCString: $0) == nil }) {
            Console.printError("error: argument \(bad) of the command line is not valid UTF-8")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        let words = Array(CommandLine.arguments.dropFirst())
        if let unknown = unknownCommand(in: words) {
            Console.printError(unknown)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        var normalized = TraceFormat.option.normalize(words)
        // `serve` passes its words on, and its own --devtools takes no value.
        if words.first == RunCommand.configuration.commandName { normalized = RunCommand.devtoolsOption.normalize(normalized) }
        await main(NegativePayloads.protecting(normalized))
    }

    /// `error: no command rnu; did you mean run?` when the first word is neither an option nor a
    /// command: ArgumentParser said only "2 unexpected arguments".
    static func unknownCommand(in words: [String]) -> String? {
        guard let first = words.first, !first.hasPrefix("-") else { return nil }
        let commands = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !commands.contains(first) else { return nil }
        let hint = NameSuggestion.closest(to: first, among: commands).map { "; did you mean \($0)?" } ?? ""
        return "error: no command \(first)\(hint) (commands: \(commands.joined(separator: ", ")))"
    }
}
