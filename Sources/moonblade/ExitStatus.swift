import ArgumentParser

/// The exit codes of `moonblade`, one per kind of failure, so scripts can tell them apart.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// A dispatch raised an error (the plugin's error is on standard error).
    case dispatchFailed = 1
    /// A spec case failed (`test`).
    case specFailed = 2
    /// A plugin failed to load or its shape check.
    case pluginFailed = 3
    /// The state file could not be read or the saved state could not be written.
    case fileFailed = 4
    /// A plugin folder given to `test` has no spec case (`spec/*_spec.lua` with an `it`).
    case noSpecs = 5
    /// The command line was wrong: swift-argument-parser's `EX_USAGE`.
    case usage = 64

    var code: ExitCode { ExitCode(rawValue) }

    /// The exit codes, as `--help` and the README list them.
    static let help = """
        EXIT CODES:
          0   success
          1   a dispatch failed (run)
          2   a spec case failed (test)
          3   a plugin failed to load or to pass its shape check
          4   a file could not be read or written (--state, --save, --junit)
          5   a plugin folder has no spec case (test)
          64  the command line is wrong (usage)
        """
}
