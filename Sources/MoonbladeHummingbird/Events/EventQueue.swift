import MoonbladeHost
import Synchronization

/// One client's events, waiting to be sent: at most `limit` of them. What arrives while it is full is
/// dropped and counted, and the client gets the count in the place of what it missed.
final class EventQueue: Sendable {
    /// What the client is sent next.
    enum Entry: Sendable {
        case event(HostEvent)
        /// How many events were dropped here.
        case missed(Int)

        /// The message a client is sent for it.
        func json() -> JSONValue {
            switch self {
            case .event(let event): event.json()
            case .missed(let count): ["type": "missed", "count": .integer(Int64(count))]
            }
        }
    }

    private struct Contents: ~Copyable {
        var entries: [Entry] = []
        var head = 0
        var events = 0
        /// Events dropped since the last one queued: a `missed` entry goes in before the next one.
        var dropped = 0
        var finished = false
        var waiter: CheckedContinuation<Entry?, Never>?

        /// The next entry, if one is waiting.
        mutating func take() -> Entry? {
            guard head < entries.count else {
                defer { dropped = 0 }
                return dropped > 0 ? .missed(dropped) : nil
            }
            let entry = entries[head]
            head += 1
            if case .event = entry { events -= 1 }
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            }
            return entry
        }
    }

    let limit: Int
    private let contents = Mutex(Contents())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Adds `event`, or counts it as missed when the queue is full; never waits.
    func push(_ event: HostEvent) {
        let resumed: (CheckedContinuation<Entry?, Never>, Entry)? = contents.withLock { contents in
            guard !contents.finished else { return nil }
            if contents.events >= limit {
                contents.dropped += 1
            } else {
                if contents.dropped > 0 {
                    contents.entries.append(.missed(contents.dropped))
                    contents.dropped = 0
                }
                contents.entries.append(.event(event))
                contents.events += 1
            }
            guard let waiter = contents.waiter, let entry = contents.take() else { return nil }
            contents.waiter = nil
            return (waiter, entry)
        }
        resumed.map { $0.0.resume(returning: $0.1) }
    }

    /// The next entry, waiting for one; nil once the queue is finished or the task cancelled.
    func next() async -> Entry? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Entry?, Never>) in
                let ready: Entry?? = contents.withLock { contents in
                    if let entry = contents.take() { return .some(entry) }
                    if contents.finished || Task.isCancelled { return .some(nil) }
                    contents.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the queue, dropping what waits in it (its client is leaving): a waiting ``next()`` and
    /// every later one return nil.
    func finish() {
        let waiter = contents.withLock { contents in
            contents.finished = true
            contents.entries.removeAll()
            contents.head = 0
            contents.events = 0
            contents.dropped = 0
            defer { contents.waiter = nil }
            return contents.waiter
        }
        waiter?.resume(returning: nil)
    }
}
