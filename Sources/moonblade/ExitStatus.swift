import ArgumentParser

/// The exit codes of `moonblade` for its failures, one per kind, so scripts can tell them apart. (0 is
/// success, 64 a wrong command line: swift-argument-parser's `EX_USAGE`.)
enum ExitStatus: Int32, CaseIterable {
    case dispatchFailed = 1
    case specFailed = 2
    case pluginFailed = 3
    case fileFailed = 4
    case noSpecs = 5
    case journalFailed = 6
    case replayDiverged = 7

    var code: ExitCode { ExitCode(rawValue) }

    /// What the code means, as `--help` lists it.
    var meaning: String {
        switch self {
        case .dispatchFailed: "a dispatch failed (run; the plugin's error is on standard error)"
        case .specFailed: "a spec case failed (test)"
        case .pluginFailed: "a plugin failed to load or to pass its shape check"
        case .fileFailed: "a file or folder cannot be read or written (--state, --save, --junit)"
        case .noSpecs: "a plugin folder has no spec case (test: spec/*_spec.lua with an `it`)"
        case .journalFailed: "a journal is missing, corrupted or cannot be written (--journal, journal, replay)"
        case .replayDiverged: "a replayed dispatch gave another result than the recorded one (replay)"
        }
    }

    /// The exit codes, as `--help` and the README list them.
    static let help =
        (["EXIT CODES:", "  0   success"] + allCases.map { "  \($0.rawValue)   \($0.meaning)" }
        + ["  64  the command line is wrong (usage)"]).joined(separator: "\n")
}
