import Foundation

/// One thread that fires the time limits of every side effect run waiting on Swift work.
///
/// A task per run sleeping until its deadline would do the same, but a cancelled `Task.sleep` keeps
/// its timer (and the task) until the deadline would have passed: a busy host held rate × 30 s of
/// them (issue 23). Here cancelling removes the entry at once, and nothing is held for a run that
/// finished.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only while holding `condition`.
    static let shared = DeadlineTimer()

    private let condition = NSCondition()
    private var entries: [Int: (instant: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
    private var lastNumber = 0
    private var isRunning = false

    /// Calls `fire` on the timer's thread once `instant` has passed, unless cancelled first.
    func schedule(at instant: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> Int {
        condition.lock()
        defer { condition.unlock() }
        lastNumber += 1
        entries[lastNumber] = (instant, fire)
        if !isRunning {
            isRunning = true
            Thread.detachNewThread { [self] in run() }
        }
        condition.signal()
        return lastNumber
    }

    /// Forgets the entry `number`; its `fire` will not be called.
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
                for entry in due.values { entry.fire() }
                condition.lock()
                continue
            }
            guard let earliest = entries.values.map(\.instant).min() else {
                condition.wait()
                continue
            }
            let (seconds, attoseconds) = (earliest - now).components
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
        }
    }
}
