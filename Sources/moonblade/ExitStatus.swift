import ArgumentParser

/// The exit codes of `moonblade` for its failures, one per kind, so scripts can tell them apart. (0 is
/// success, 64 a wrong command line: swift-argument-parser's `EX_USAGE`; 130 and 143 a watching `run`
/// stopped by SIGINT or SIGTERM after saving, 128 + the signal as shells have it.)
enum ExitStatus: Int32, CaseIterable {
    case dispatchFailed = 1
    case specFailed = 2
    case pluginFailed = 3
    case fileFailed = 4
    case noSpecs = 5
    case loggedFailure = 6
    case journalFailed = 7
    case replayDiverged = 8

    var code: ExitCode { ExitCode(rawValue) }

    /// What the code means, as `--help` lists it.
    var meaning: String {
        switch self {
        case .dispatchFailed: "a dispatch failed (run; the plugin's error is on standard error)"
        case .specFailed: "a spec case failed (test)"
        case .pluginFailed:
            "a plugin failed to load or to pass its shape check, or to migrate the journal's state to its version; or a folder given holds no plugin"
        case .fileFailed:
            "a folder given does not exist, or a file cannot be read or written (--state, also when it is not exact JSON; "
                + "--save, checked before any work; --junit; new, also when the plugin's folder exists)"
        case .noSpecs: "a plugin has no spec case (test: spec/*_spec.lua with an `it`)"
        case .loggedFailure:
            "a failure reached only the log (run: a rule, what it dispatched, an on_start item, a stopped cascade; "
                + "--allow-logged-failures exits 0 for them)"
        case .journalFailed: "a journal is missing, corrupted or cannot be written (--journal, journal, replay)"
        case .replayDiverged: "a replayed dispatch gave another result than the recorded one (replay)"
        }
    }

    /// The exit codes, as `--help` and the command-line article list them.
    static let help =
        (["EXIT CODES:", "  0   success"] + allCases.map { "  \($0.rawValue)   \($0.meaning)" }
        + [
            "  64  the command line is wrong (usage; a --dispatch payload that is not exact JSON; an argument that is not UTF-8)",
            "  130 run --watch stopped by SIGINT (Ctrl-C), 143 by SIGTERM, after saving the state",
        ]).joined(separator: "\n")
}
