import ArgumentParser
import Foundation
import MoonbladeJournal

/// `moonblade journal`: looks into a dispatch journal.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Read or check a dispatch journal, or turn a recorded session into a spec.",
        subcommands: [Log.self, Check.self, ToSpec.self]
    )

    /// `moonblade journal log FILE [--from N] [--until M]`.
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a journal's entries: item, payload, outcome, duration, plugin versions and changes.",
            discussion: """
                Each entry is a line `SEQUENCE  TIME  ITEM PAYLOAD`, then a line with who ran it, the \
                outcome, the duration and the plugin versions the state before it was kept by, then one \
                line per change (`total: 1 → 3`). Reading changes nothing in the file: no plugin runs.
                """)

        @Argument(help: "The journal file.")
        var file: String

        @OptionGroup var range: EntryRangeOptions

        func run() throws {
            let log = try JournalFailure.guarding { () throws(JournalError) in
                try Journal.existing(at: file).log(from: range.from, until: range.until)
            }
            if log.isEmpty { Console.print("no entries") }
            for logged in log {
                Console.print(JournalLogLines.lines(logged).joined(separator: "\n"))
            }
        }
    }

    /// `moonblade journal check FILE`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a journal: the file, every entry, and that every recorded state rebuilds.",
            discussion: "Prints a summary when it is sound; else the problem, naming the file, and exit code 7.")

        @Argument(help: "The journal file.")
        var file: String

        func run() throws {
            let summary = try JournalFailure.guarding { () throws(JournalError) in try Journal.existing(at: file).check() }
            Console.print(
                "\(file): ok (entries: \(summary.entries), last: \(summary.lastSequence), snapshots: \(summary.snapshots))")
        }
    }

    /// `moonblade journal to-spec FILE --plugin NAME`.
    struct ToSpec: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "to-spec",
            abstract: "Write a spec that replays a plugin's recorded dispatches and asserts the recorded states.",
            discussion: """
                The spec runs each of the plugin's recorded updaters in order on the recorded state \
                before it, as replay does (no interceptor or rule runs: what a rule dispatched is an \
                entry of its own), and asserts the state it left (or that it failed). Put it in the \
                plugin's spec folder and `moonblade test` runs it: a regression test from a real session.
                """)

        @Argument(help: "The journal file.")
        var file: String

        @Option(help: ArgumentHelp("The plugin whose dispatches the spec replays.", valueName: "name"))
        var plugin: String

        @Option(help: ArgumentHelp("Where to write the spec (default: NAME_recorded_spec.lua).", valueName: "file"))
        var output: String?

        @OptionGroup var range: EntryRangeOptions

        func run() throws {
            let source = try JournalFailure.guarding { () throws(JournalError) in
                try JournalSpecWriter.spec(from: Journal.existing(at: file), plugin: plugin, from: range.from, until: range.until)
            }
            let path = output ?? "\(plugin)_recorded_spec.lua"
            do {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try source.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                Console.printError("error: cannot write the spec \(path): \(error.localizedDescription)")
                throw ExitStatus.fileFailed.code
            }
            Console.print("wrote \(path)")
        }
    }
}
