import Logging
import Moonblade

/// What a spec case's store could only log: an observer rule that failed, or an item a rule
/// dispatched that failed. Nobody awaits those, so without this a case whose `dispatch` set off a
/// failing cascade would pass; the runner raises them at the `dispatch` or `post` that set them off.
final class RuleFailureLog: @unchecked Sendable {
    // @unchecked Sendable: `failures` is touched only under `lock` (a pthread `Lock`, which the thread
    // sanitizer follows; it does not follow `Synchronization.Mutex`).
    private let lock = Lock()
    private var failures: [String] = []

    /// The logger for the case's store: entries with `rule` metadata from `error` up are recorded.
    var logger: Logger {
        Logger(label: "moonblade.spec") { _ in
            // Rule failures only; everything else a spec's store logs is dropped.
            LogEntryHandler(logLevel: .error) { event, metadata in
                if metadata["rule"] != nil { self.record("\(event.message)") }
            }
        }
    }

    /// How many failures were recorded so far.
    var count: Int { lock.withLock { failures.count } }

    /// The failures recorded after the first `count`.
    func failures(after count: Int) -> [String] {
        lock.withLock { Array(failures.dropFirst(count)) }
    }

    private func record(_ message: String) {
        lock.withLock { failures.append(message) }
    }
}

/// A failure a case's store logged while a `dispatch` or `post` ran, raised at that call.
struct LoggedRuleFailure: Error, CustomStringConvertible {
    let message: String

    var description: String { "an observer rule's work failed: \(message)" }
}
