import Foundation
import MoonbladeLua

/// One thread that fires the time limits of every side effect run waiting on Swift work.
///
/// A task per run sleeping until its deadline would do the same, but a cancelled `Task.sleep` keeps
/// its timer (and the task) until the deadline would have passed: a busy host held rate × 30 s of
/// them. Here a run is scheduled before its first await, whether that suspends or not, so scheduling
/// must cost next to nothing: an append under a lock, and no cancelling at all. A client that has
/// finished says so (``Client/hasFinished``) and is dropped at the thread's next pass, which comes at
/// the earliest deadline or once the entries have doubled since the last pass, whichever is first:
/// finished runs are held no longer than it takes as many again to be scheduled. Scheduling wakes the
/// thread only when the new entry is due before the one it sleeps towards (with one time limit for
/// every run, never) or the entries have doubled.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only while holding `lock`.
    static let shared = DeadlineTimer()

    /// What is told when its deadline passes.
    protocol Client: AnyObject, Sendable {
        /// Called on the timer's thread once the deadline has passed, unless the client has finished
        /// first; must not block, or every later deadline waits.
        func deadlinePassed()
        /// Whether the client needs the timer no more: its entry goes at the next pass.
        var hasFinished: Bool { get }
    }

    private let lock = NSLock()
    /// What the thread sleeps on. A semaphore's timeout runs on the monotonic clock, where a condition's
    /// `wait(until:)` takes a wall-clock date: a wall clock set back (or frozen, as the instruction
    /// counts run it) would have the thread wake at once, over and over. An extra signal only makes a
    /// pass with nothing to do.
    private let wakeUp = DispatchSemaphore(value: 0)
    private var entries: [(deadline: LuaDeadline, client: any Client)] = []
    /// How many entries wake the thread for a pass: twice as many as the last pass kept.
    private var passAt = DeadlineTimer.smallestPass
    private static let smallestPass = 64
    private var isRunning = false
    /// Whether the thread is waiting, and until which deadline (nil: until signalled).
    private var sleep: (isSleeping: Bool, until: LuaDeadline?) = (false, nil)

    /// Tells `client` on the timer's thread once `deadline` has passed, unless it has finished first;
    /// keeps `client` until the first pass after it has finished.
    func schedule(_ deadline: LuaDeadline, _ client: any Client) {
        lock.lock()
        defer { lock.unlock() }
        entries.append((deadline, client))
        if !isRunning {
            isRunning = true
            Thread.detachNewThread { [self] in run() }
        }
        guard sleep.isSleeping else { return }
        if entries.count >= passAt || sleep.until.map({ deadline.instant < $0.instant }) ?? true {
            wakeUp.signal()
        }
    }

    private func run() {
        lock.lock()
        while true {
            var due: [any Client] = []
            // Compacted in place by hand: `removeAll(where:)` on these tuples takes a generic path
            // that cost ~150,000 instructions a pass of 64 entries.
            var kept = 0
            for index in entries.indices {
                let entry = entries[index]
                if entry.client.hasFinished { continue }
                if entry.deadline.hasPassed {
                    due.append(entry.client)
                    continue
                }
                entries[kept] = entry
                kept += 1
            }
            entries.removeLast(entries.count - kept)
            passAt = max(Self.smallestPass, entries.count * 2)
            if !due.isEmpty {
                lock.unlock()
                for client in due { client.deadlinePassed() }
                lock.lock()
                continue
            }
            let earliest = entries.min { $0.deadline.instant < $1.deadline.instant }?.deadline
            sleep = (true, earliest)
            lock.unlock()
            if let earliest {
                let (seconds, attoseconds) = earliest.remaining.components
                let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) * 1e-9
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 1e15))))
            } else {
                wakeUp.wait()
            }
            lock.lock()
            sleep = (false, nil)
        }
    }
}
