import Foundation
import Moonblade
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM as a request to stop that a watching `run` answers by finishing in
/// order: the dispatch in flight settles (or is abandoned after ``grace``), the state is saved and
/// printed, and the run exits 128 + the signal (130, 143). A second signal ends the process at once.
final class StopSignals: Sendable {
    /// How long the dispatch in flight may take to settle once a stop is asked for.
    static let grace = Duration.seconds(5)

    private let first = FirstSignal()
    private let catcher: SignalCatcher

    /// Starts catching SIGINT and SIGTERM instead of dying of them.
    init() {
        let first = self.first
        catcher = SignalCatcher([SIGINT, SIGTERM], resettingAfterFirst: true) { number in
            _ = first.number.compareExchange(expected: 0, desired: number, ordering: .relaxed)
        }
    }

    /// The first signal received, if any.
    var received: Int32? {
        let number = first.number.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// The exit code for the signal received: 128 + its number.
    var exitCode: Int32? { received.map { 128 + $0 } }

    /// Waits until `work` finishes and returns true, unless a stop signal comes first and `work` has not
    /// finished ``grace`` later: then returns false and leaves it running (abandoned).
    func settles<Value>(_ work: Task<Value, any Error>) async -> Bool {
        await finishes(work) { [self] in
            guard await wait() != nil else { return false }
            return (try? await Task.sleep(for: Self.grace)) != nil
        }
    }

    /// Waits until `work` finishes and returns true, or returns false once `limit` has passed.
    func finishes<Value>(_ work: Task<Value, any Error>, within limit: Duration) async -> Bool {
        await finishes(work) { (try? await Task.sleep(for: limit)) != nil }
    }

    /// Waits until `work` finishes (true) or `moment` returns true (false), whichever comes first.
    ///
    /// Not a task group: a group waits for all its children, and awaiting `work` cannot be cancelled.
    private func finishes<Value>(
        _ work: Task<Value, any Error>, before moment: @escaping @Sendable () async -> Bool
    ) async -> Bool {
        let outcome = FirstOutcome()
        let finishing = Task {
            _ = await work.result
            outcome.resolve(true)
        }
        let timing = Task {
            if await moment() { outcome.resolve(false) }
        }
        let finished = await outcome.value
        finishing.cancel()
        timing.cancel()
        return finished
    }

    /// Returns once a signal has come (at once if one has), or nil when the task is cancelled first.
    func wait() async -> Int32? {
        while true {
            if let received { return received }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }
        }
    }
}

/// The first stop signal caught: its number, 0 before one.
private final class FirstSignal: Sendable {
    let number = Atomic<Int32>(0)
}

/// The first of several racing outcomes, awaited once.
private final class FirstOutcome: @unchecked Sendable {
    // @unchecked Sendable: `result` and `waiter` are touched only inside `lock`.
    private let lock = Lock()
    private var result: Bool?
    private var waiter: CheckedContinuation<Bool, Never>?

    /// Settles the outcome as `value` unless it is settled already.
    func resolve(_ value: Bool) {
        let resumed: CheckedContinuation<Bool, Never>? = lock.withLock {
            guard result == nil else { return nil }
            result = value
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume(returning: value)
    }

    var value: Bool {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let settled: Bool? = lock.withLock {
                    if let result { return result }
                    waiter = continuation
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        }
    }
}
