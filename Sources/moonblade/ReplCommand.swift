import ArgumentParser
import Foundation
import MoonbladeHost
import MoonbladeJournal

/// `moonblade repl`: an interactive session with a store on the given plugins.
struct ReplCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Explore plugins interactively: dispatch items and look at the state.",
        discussion: """
            Reads commands from standard input, one per line, until `quit` or end of file. \
            Errors are reported and the session goes on. Type `help` for the commands.

            Plugins reload by themselves when their folder's Lua files change (--no-watch turns \
            that off), each reload reported on standard error; the `reload` command reloads them all \
            at once. The state survives a reload; a reload that fails keeps the earlier version. A \
            plugin that does not load is reported and left out, and loads once its files are fixed.

            Every dispatch is journaled (in memory, or in the --journal file, which a later session \
            starts from): `history` lists them, `goto N` brings back the state as of N and goes on \
            from there, `undo` steps back, `diff N` compares the state with the one as of N.

            On a terminal, lines are edited with libedit (arrow keys, Ctrl-R to search the history, \
            ~/.editrc); the history is kept in --history. Tab completes a command, an item name, or the \
            file after save. A message that comes while a line is typed (a reload, a rule's failure) \
            goes above it, and the prompt and the line follow. Ctrl-C cancels the line being typed, or \
            stops the plugin code of the dispatch in flight (which fails, `interrupted`, at its line; \
            a second Ctrl-C stops waiting for it); Ctrl-D or quit ends the session. --state starts from a \
            JSON file, --save writes the state there when the session ends.

            \(ExitStatus.help)
            """
    )

    @OptionGroup var host: HostOptions

    @OptionGroup var journalOptions: JournalOptions

    @Flag(
        inversion: .prefixedNo,
        help: "Reload a plugin whenever its folder's Lua files change (on by default).")
    var watch = true

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp("A JSON file with the initial state.", valueName: "file"))
    var stateFile: String?

    @Option(help: ArgumentHelp("Save the state to this file (atomically) when the session ends.", valueName: "file"))
    var save: String?

    @Option(
        help: ArgumentHelp(
            "The history file of the line editor (default: $XDG_STATE_HOME/moonblade/history, else $HOME/.moonblade_history).",
            valueName: "file"))
    var history: String?

    func validate() throws {
        try host.requireFolders()
    }

    func run() async throws {
        let journal = try journalOptions.open() ?? JournalFailure.guarding { () throws(JournalError) in try Journal.inMemory() }
        defer { JournalFailure.close(journal) }
        let initialState = try stateFile.map(StateFile.read)
        try save.map(StateFile.checkSavable)
        // A broken plugin is reported and left out; the watcher (or `reload`) loads it once fixed.
        let session = try await host.session(initialState: initialState, journal: journal, keepingBrokenPlugins: true)
        let hotReload = watch ? HotReload(session.host) : nil
        defer { hotReload?.stop() }
        var repl = Repl(session: session)
        let prompt = "moonblade> "
        if Console.inputIsTerminal {
            Console.print(
                "moonblade repl: \(session.host.plugins.map(\.name).joined(separator: ", ")). Type help for the commands."
            )
            repl.interrupts = Interrupts()
        }
        let historyFile = history ?? LineEditor.defaultHistoryFile
        if Console.inputIsTerminal {
            // `$XDG_STATE_HOME/moonblade` may not exist yet; a history that cannot be kept is no error.
            try? FileManager.default.createDirectory(
                at: URL(fileURLWithPath: historyFile).deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let completion = ReplCompletion(itemNames: { session.itemNames })
        if Console.inputIsTerminal,
            let editor = LineEditor(prompt: prompt, historyFile: historyFile, complete: completion.candidates(for:))
        {
            Console.beginEditing(with: editor)
            await repl.run(lines: editor.lines(), prompt: nil)  // libedit shows the prompt
            Console.endEditing()
        } else {
            await repl.run(lines: Console.inputLines(), prompt: Console.inputIsTerminal ? prompt : nil)
        }
        if let save {
            try StateFile.save(session.state, to: save)
        }
    }
}
