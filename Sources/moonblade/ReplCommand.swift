import ArgumentParser
import MoonbladeHost

/// `moonblade repl`: an interactive session with a store on the given plugins.
struct ReplCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Explore plugins interactively: dispatch items and look at the state.",
        discussion: """
            Reads commands from standard input, one per line, until `quit` or end of file. \
            Errors are reported and the session goes on. Type `help` for the commands.

            \(ExitStatus.help)
            """
    )

    @OptionGroup var host: HostOptions

    func run() async throws {
        let session = try host.session()
        let repl = Repl(session: session)
        if Console.inputIsTerminal {
            Console.print(
                "moonblade repl: \(session.host.plugins.map(\.name).joined(separator: ", ")). Type help for the commands."
            )
        }
        await repl.run(lines: Console.inputLines(), prompt: Console.inputIsTerminal ? "moonblade> " : nil)
    }
}
