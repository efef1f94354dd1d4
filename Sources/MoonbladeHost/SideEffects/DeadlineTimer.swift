import Foundation

/// One thread that fires the time limits of every side effect run waiting on Swift work.
///
/// A task per run sleeping until its deadline would do the same, but a cancelled `Task.sleep` keeps
/// its timer (and the task) until the deadline would have passed: a busy host held rate × 30 s of
/// them. Here cancelling removes the entry at once, and nothing is held for a run that
/// finished. Scheduling wakes the thread only when the new entry is due before the one it sleeps
/// towards: with one time limit for every run, a new entry is never the earliest, so a run costs a
/// dictionary insert and remove, not a thread wake-up.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only while holding `condition`.
    static let shared = DeadlineTimer()

    /// What is told when its deadline passes.
    protocol Client: AnyObject, Sendable {
        /// Called on the timer's thread once the deadline has passed, unless cancelled first; must not
        /// block, or every later deadline waits.
        func deadlinePassed()
    }

    private let condition = NSCondition()
    private var entries: [Int: (instant: ContinuousClock.Instant, client: any Client)] = [:]
    private var lastNumber = 0
    private var isRunning = false
    /// Whether the thread is waiting, and until when (nil: until signalled).
    private var sleep: (isSleeping: Bool, until: ContinuousClock.Instant?) = (false, nil)

    /// Tells `client` on the timer's thread once `instant` has passed, unless cancelled first; keeps
    /// `client` until then.
    func schedule(at instant: ContinuousClock.Instant, _ client: any Client) -> Int {
        condition.lock()
        defer { condition.unlock() }
        lastNumber += 1
        entries[lastNumber] = (instant, client)
        if !isRunning {
            isRunning = true
            Thread.detachNewThread { [self] in run() }
        }
        if sleep.isSleeping, sleep.until.map({ instant < $0 }) ?? true {
            condition.signal()
        }
        return lastNumber
    }

    /// Forgets the entry `number`; its client will not be told.
    func cancel(_ number: Int) {
        condition.lock()
        entries[number] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            let due = entries.filter { $0.value.instant <= now }
            for number in due.keys { entries[number] = nil }
            if !due.isEmpty {
                condition.unlock()
                for entry in due.values { entry.client.deadlinePassed() }
                condition.lock()
                continue
            }
            let earliest = entries.values.map(\.instant).min()
            sleep = (true, earliest)
            if let earliest {
                let (seconds, attoseconds) = (earliest - now).components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
            } else {
                condition.wait()
            }
            sleep = (false, nil)
        }
    }
}
