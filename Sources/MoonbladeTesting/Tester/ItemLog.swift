import Moonblade
import MoonbladeHost

/// One item the store handled, with the state around it.
struct ItemRecord<S: Sendable>: Sendable {
    var name: String
    var before: S
    var after: S
}

/// What a ``PluginTester`` saw happen in its store, written by its interceptor on the store's
/// draining thread and by running side effects, read by the test.
final class ItemLog<S: State & Equatable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees, unlike `Mutex`).
    private let lock = Lock()
    private var storedExhaustivity = Exhaustivity.on
    private var finished = false
    /// The name of the item the test is dispatching, until the interceptor has seen it.
    private var awaitedDirect: String?
    private var directRecord: ItemRecord<S>?
    private var receivedRecords: [ItemRecord<S>] = []
    /// Side effects in flight, by a number given when they start.
    private var runningSideEffects: [Int: String] = [:]
    private var nextRunNumber = 0
    private var sideEffectFailures: [String] = []

    var exhaustivity: Exhaustivity {
        get { lock.withLock { storedExhaustivity } }
        set { lock.withLock { storedExhaustivity = newValue } }
    }

    var isFinished: Bool {
        get { lock.withLock { finished } }
        set { lock.withLock { finished = newValue } }
    }

    var direct: ItemRecord<S>? { lock.withLock { directRecord } }
    var received: [ItemRecord<S>] { lock.withLock { receivedRecords } }

    /// The names of the side effects still running, oldest first; nil when none is.
    var running: [String]? {
        lock.withLock {
            runningSideEffects.isEmpty ? nil : runningSideEffects.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// Marks the next item named `name` as the test's own dispatch (nil: no longer expected).
    func expectDirect(_ name: String?) {
        lock.withLock {
            awaitedDirect = name
            directRecord = nil
        }
    }

    func takeDirect() -> ItemRecord<S>? {
        lock.withLock {
            defer { directRecord = nil }
            return directRecord
        }
    }

    /// Removes and returns the oldest received item, or with `name` the oldest of that name and every
    /// item before it.
    func takeReceived(named name: String?) -> ItemRecord<S>? {
        lock.withLock {
            guard let index = receivedRecords.firstIndex(where: { name == nil || $0.name == name }) else { return nil }
            let record = receivedRecords[index]
            receivedRecords.removeFirst(index + 1)
            return record
        }
    }

    /// Failures left over from earlier steps that must not pass unnoticed before the next dispatch:
    /// items not received (exhaustive only) and failed side effects. Clears them.
    func leftoverFailures() -> [String] {
        lock.withLock {
            var failures = sideEffectFailures
            if storedExhaustivity == .on, !receivedRecords.isEmpty {
                failures.append(
                    "received \(receivedRecords.map(\.name).joined(separator: ", ")) but did not assert it: "
                        + "every item a side effect dispatches must be checked with receive, in order")
            }
            receivedRecords.removeAll()
            sideEffectFailures.removeAll()
            return failures
        }
    }

    /// The failures of a test that ends now, with `stillRunning` side effects.
    func endOfTestFailures(stillRunning: [String]?) -> [String] {
        var failures = leftoverFailures()
        if exhaustivity == .on, let stillRunning {
            failures += stillRunning.map { "side effect \($0) is still running at the end of the test" }
        }
        return failures
    }
}

// MARK: - Watching the store

extension ItemLog {
    /// The interceptor that records every item with its change and tracks side effects in flight.
    var interceptor: StoreInterceptor {
        { context in { next in { item in
            let name = pluginItemName(of: item) ?? String(describing: type(of: item))
            let before = context.getAnyState() as! S
            // A typed face of a Lua side effect must reach the host's binding interceptor as it is.
            let isTypedFace = item is any LuaSideEffect || item is any LuaReturningSideEffect
            if let sideEffect = item as? any AnySideEffect, !isTypedFace {
                try next(TrackedSideEffect(wrapped: sideEffect, name: name, runNumber: self.beginSideEffect(name), log: self))
            } else {
                try next(item)
            }
            self.record(ItemRecord(name: name, before: before, after: context.getAnyState() as! S))
        } } }
    }

    private func record(_ record: ItemRecord<S>) {
        lock.withLock {
            if awaitedDirect == record.name {
                awaitedDirect = nil
                directRecord = record
            } else {
                receivedRecords.append(record)
            }
        }
    }

    func beginSideEffect(_ name: String) -> Int {
        lock.withLock {
            nextRunNumber += 1
            runningSideEffects[nextRunNumber] = name
            return nextRunNumber
        }
    }

    func endSideEffect(_ runNumber: Int, failure: (any Error)?) {
        lock.withLock {
            let name = runningSideEffects.removeValue(forKey: runNumber) ?? "?"
            if let failure {
                sideEffectFailures.append("side effect \(name) failed: \(failure)")
            }
        }
    }
}

/// A side effect run on behalf of another so that the tester knows while it is in flight.
private struct TrackedSideEffect<S: State & Equatable>: AnySideEffect {
    let wrapped: any AnySideEffect
    let name: String
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
