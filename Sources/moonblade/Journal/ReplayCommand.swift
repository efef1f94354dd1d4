import ArgumentParser
import Logging
import MoonbladeHost
import MoonbladeJournal

/// `moonblade replay FILE --plugins DIR`: recorded traffic against the current plugin code.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a journal's recorded updater dispatches through the current plugin code.",
        discussion: """
            Each recorded Lua updater runs on the recorded state before it; the first whose result \
            differs from the recorded one (another state, or failing where it applied, or the other \
            way round) is reported with its sequence, item and the differing paths, and the exit \
            code is \(ExitStatus.replayDiverged.rawValue). Side effects and Swift items are not run; their recorded changes are applied. \
            No observer rule fires, `on_start` included: replaying changes nothing outside the run. \
            Check a plugin change against real traffic this way before reloading it into a host.

            \(ExitStatus.help)
            """
    )

    @Argument(help: "The journal file.")
    var file: String

    @Option(
        name: .customLong("plugins"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "The plugin folders to replay on (each with a plugin.lua), or a folder of plugin folders.", valueName: "dir"))
    var plugins: [String]

    @OptionGroup var range: EntryRangeOptions

    func run() async throws {
        let journal = try JournalFailure.guarding { () throws(JournalError) in try Journal.existing(at: file) }
        var configuration = PluginHost<JSONValue>.Configuration(logger: ConsoleLogHandler.hostLogger(level: .warning))
        configuration.firesStartRules = false
        let host = try PluginHost<JSONValue>(plugins: PluginFolders.resolve(plugins), configuration: configuration)
        guard host.loadErrors.isEmpty else {
            host.loadErrors.forEach(Console.report)
            throw ExitStatus.pluginFailed.code
        }
        let report = try JournalFailure.guarding { () throws(JournalError) in
            try JournalReplay.run(journal, on: host, from: range.from, until: range.until)
        }
        guard let divergence = report.divergence else {
            Console.print("replayed \(report.matched) updater dispatches, all as recorded (\(report.skipped) other entries skipped)")
            return
        }
        let entry = divergence.entry
        Console.print("diverged at \(entry.sequence): \(entry.name) \(entry.payload?.jsonString() ?? "")")
        for line in divergence.lines {
            Console.print("  \(line)")
        }
        Console.print("(matched before it: \(report.matched))")
        throw ExitStatus.replayDiverged.code
    }
}
