import Moonblade

/// The failures the host could only log: nobody awaited what failed (an observer rule or the item it
/// dispatched, an `on_start` item, a cascade stopped for running away), so no command saw an error.
///
/// ``ConsoleLogHandler`` counts the host's entries from `error` up here, leaving out what the commands
/// report themselves (a refused plugin, a failed reload); `run` then exits with
/// ``ExitStatus/loggedFailure`` so a script learns that something failed.
final class LoggedFailures: @unchecked Sendable {
    // @unchecked Sendable: `count` is touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees).
    private let lock = Lock()
    private var count = 0

    static let shared = LoggedFailures()

    func record() {
        lock.withLock { count += 1 }
    }

    var total: Int { lock.withLock { count } }
}
