import ArgumentParser
import MoonbladeJournal

/// The journal options of `run` and `repl`: where dispatches are recorded, and how durably.
struct JournalOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Record every dispatch in this journal (an SQLite file) and start from its latest state.",
            valueName: "file"))
    var journal: String?

    @Flag(help: "Commit each dispatch to the journal before it counts as done (slower; nothing done is lost).")
    var strictJournal = false

    @Option(help: ArgumentHelp("Write a snapshot of the whole state every this many dispatches.", valueName: "n"))
    var snapshotEvery = 1000

    func validate() throws {
        guard snapshotEvery > 0 else { throw ValidationError("--snapshot-every must be at least 1") }
    }

    var configuration: Journal.Configuration {
        Journal.Configuration(durability: strictJournal ? .strict : .groupCommit, snapshotInterval: snapshotEvery)
    }

    /// The journal of `--journal`, opened (created when missing); nil without the option.
    func open() throws -> Journal? {
        try journal.map { path in try JournalFailure.guarding { () throws(JournalError) in try Journal(path: path, configuration: configuration) } }
    }
}

/// Reporting journal errors on the command line: `error: journal FILE: problem`, exit code 7.
enum JournalFailure {
    /// Runs `body`; a ``JournalError`` is reported and becomes ``ExitStatus/journalFailed``.
    static func guarding<Result>(_ body: () throws(JournalError) -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            Console.report(error)
            throw ExitStatus.journalFailed.code
        }
    }

    /// Closes `journal` (the shutdown snapshot), reporting a failure on standard error.
    static func close(_ journal: Journal?) {
        do {
            try journal?.close()
        } catch {
            Console.report(error)
        }
    }
}

/// `--from N --until M`: the entries `replay`, `journal log` and `journal to-spec` take. A range that holds no entry
/// is a usage error: `--from=-4` silently started at 1, and `--until` before `--from` replayed
/// nothing and exited 0 (`to-spec` blamed the plugin for having no dispatch).
struct EntryRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The first entry to take (entries are numbered from 1).", valueName: "n"))
    var from = 1

    // Optional, so that --help says "the last" rather than 9223372036854775807.
    @Option(name: .customLong("until"), help: ArgumentHelp("The last entry to take (default: the last).", valueName: "n"))
    var lastEntry: Int?

    /// The last entry to take.
    var until: Int { lastEntry ?? Int.max }

    func validate() throws {
        guard from >= 1 else { throw ValidationError("--from \(from): entries are numbered from 1") }
        guard until >= from else { throw ValidationError("--until \(until) is before --from \(from)") }
    }
}
