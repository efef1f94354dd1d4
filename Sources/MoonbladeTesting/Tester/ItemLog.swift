import Moonblade
import MoonbladeHost

/// One item the store handled, as it was dispatched, with the state around it and how it went.
struct ItemRecord<S> {
    /// The item before any interceptor changed it.
    var item: any Dispatchable
    var before: S
    var after: S
    /// The error the dispatcher got from the store while it handled the item (an updater's, or an
    /// interceptor's that refused it); nil when the item was applied or started.
    var failure: (any Error)?
}

/// What a ``PluginTester`` saw happen in its store, written by its interceptors on the store's
/// draining thread and by running side effects, read by the test.
///
/// Items are kept as they are: the tester names them through its host when it reads them, since the
/// host is not there yet when the first items (those of `on_start` rules) run.
final class ItemLog<S: State & Equatable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees, unlike `Mutex`).
    private let lock = Lock()
    private var storedExhaustivity = Exhaustivity.on
    private var finished = false
    /// Items handled and not yet taken by the test, oldest first.
    private var records: [ItemRecord<S>] = []
    /// Side effects in flight, by a number given when they start.
    private var runningSideEffects: [Int: any Dispatchable] = [:]
    private var nextRunNumber = 0
    private var sideEffectFailures: [(sideEffect: any Dispatchable, error: any Error)] = []

    var exhaustivity: Exhaustivity {
        get { lock.withLock { storedExhaustivity } }
        set { lock.withLock { storedExhaustivity = newValue } }
    }

    var isFinished: Bool {
        get { lock.withLock { finished } }
        set { lock.withLock { finished = newValue } }
    }

    /// The items handled and not yet taken, oldest first.
    var pending: [ItemRecord<S>] { lock.withLock { records } }

    /// The side effects still running, oldest first.
    var running: [any Dispatchable] {
        lock.withLock { runningSideEffects.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Removes and returns the oldest record that `matches`, and with `skipping` every record before it.
    func take(skipping: Bool = false, where matches: (ItemRecord<S>) -> Bool) -> ItemRecord<S>? {
        lock.withLock {
            guard let index = records.firstIndex(where: matches) else { return nil }
            let record = records[index]
            if skipping { records.removeFirst(index + 1) } else { records.remove(at: index) }
            return record
        }
    }

    /// Failures left over from earlier steps that must not pass unnoticed before the next dispatch:
    /// items not taken (exhaustive only) and failed side effects. Clears them.
    func leftoverFailures(naming name: (any Dispatchable) -> String) -> [String] {
        let (exhaustivity, untaken, failed) = lock.withLock {
            defer {
                records.removeAll()
                sideEffectFailures.removeAll()
            }
            return (storedExhaustivity, records, sideEffectFailures)
        }
        var failures = failed.map { "side effect \(name($0.sideEffect)) failed: \($0.error)" }
        if exhaustivity == .on, !untaken.isEmpty {
            failures.append(
                "received \(untaken.map { name($0.item) }.joined(separator: ", ")) but did not assert it: "
                    + "every item a side effect dispatches must be checked with receive, in order")
        }
        return failures
    }

    /// The failures of a test that ends now: the leftovers, and (exhaustive only) the side effects
    /// still running.
    func endOfTestFailures(naming name: (any Dispatchable) -> String) -> [String] {
        let stillRunning = exhaustivity == .on ? running : []
        return leftoverFailures(naming: name)
            + stillRunning.map { "side effect \(name($0)) is still running at the end of the test" }
    }
}

// MARK: - Watching the store

extension ItemLog {
    /// The outermost interceptor: records every item as it was dispatched, with its change or the
    /// error the store handed back.
    var recorder: StoreInterceptor {
        { context in
            { next in
                { item in
                    let before = context.getAnyState() as! S
                    do {
                        try next(item)
                    } catch {
                        self.record(ItemRecord(item: item, before: before, after: context.getAnyState() as! S, failure: error))
                        throw error
                    }
                    self.record(ItemRecord(item: item, before: before, after: context.getAnyState() as! S))
                }
            }
        }
    }

    /// The innermost interceptor: tracks each side effect while it runs. Innermost, so the plugins'
    /// interceptors and rules see the side effect itself rather than the tracking wrapper.
    var sideEffectTracker: StoreInterceptor {
        { _ in
            { next in
                { item in
                    guard let sideEffect = item as? any AnySideEffect else { return try next(item) }
                    try next(TrackedSideEffect(wrapped: sideEffect, runNumber: self.beginSideEffect(sideEffect), log: self))
                }
            }
        }
    }

    private func record(_ record: ItemRecord<S>) {
        lock.withLock { records.append(record) }
    }

    private func beginSideEffect(_ sideEffect: any Dispatchable) -> Int {
        lock.withLock {
            nextRunNumber += 1
            runningSideEffects[nextRunNumber] = sideEffect
            return nextRunNumber
        }
    }

    fileprivate func endSideEffect(_ runNumber: Int, failure: (any Error)?) {
        lock.withLock {
            let sideEffect = runningSideEffects.removeValue(forKey: runNumber)
            if let sideEffect, let failure {
                sideEffectFailures.append((sideEffect, failure))
            }
        }
    }
}

/// A side effect run on behalf of another so that the tester knows while it is in flight.
private struct TrackedSideEffect<S: State & Equatable>: AnySideEffect {
    let wrapped: any AnySideEffect
    let runNumber: Int
    let log: ItemLog<S>

    func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        do {
            let result = try await wrapped.anySideEffect(context)
            log.endSideEffect(runNumber, failure: nil)
            return result
        } catch {
            log.endSideEffect(runNumber, failure: error)
            throw error
        }
    }
}
