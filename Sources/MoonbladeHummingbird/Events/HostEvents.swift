import Logging
import Moonblade
import MoonbladeHost
import Synchronization

/// What happens in a plugin host, for the routes' live event stream: every dispatch with its outcome
/// and diff, every reload, every failure that reached only the log.
///
/// Give the host its ``interceptor()`` (and its logger through ``logger(_:)``) when you make it, then
/// hand this to ``HostRoutes``:
///
/// ```swift
/// let events = HostEvents()
/// let host = try PluginHost<AppState>(
///     plugins: ["Plugins/orders"], interceptors: [events.interceptor()],
///     configuration: .init(logger: events.logger(Logger(label: "app"))))
/// ```
///
/// Dispatch never waits for a client: each client has a bounded queue (see
/// ``HostRoutes/Configuration/eventQueueLimit``) that drops what it cannot hold and then tells the
/// client how many events it missed. Payloads, states and diffs are turned into JSON on the client's
/// own task, never on the store's. With no client connected, the interceptor costs one atomic load.
public final class HostEvents: Sendable {
    private let subscribers = Mutex<[Int: EventQueue]>([:])
    private let subscriberCount = Atomic<Int>(0)
    private let nextID = Atomic<Int>(0)

    /// A hub with no client yet.
    public init() {}

    /// The store interceptor that reports each dispatch: put it first in the host's `interceptors`,
    /// where it sees the whole chain's outcome (a Lua interceptor's refusal included).
    public func interceptor() -> StoreInterceptor {
        { [self] context in
            { next in
                { item in
                    guard self.subscriberCount.load(ordering: .relaxed) > 0 else { return try next(item) }
                    let recorded = RecordedItem(item)
                    let old = recorded.isUpdater ? context.getAnyState() : nil
                    let depth = context.cascadeDepth
                    let start = ContinuousClock.now
                    do {
                        try next(item)
                    } catch {
                        self.publish(
                            .dispatch(
                                DispatchEvent(
                                    item: recorded, outcome: .failed(error), duration: start.duration(to: .now),
                                    cascadeDepth: depth, change: nil)))
                        throw error
                    }
                    let duration = start.duration(to: .now)
                    let change = old.map { (old: $0, new: context.getAnyState()) }
                    self.publish(
                        .dispatch(
                            DispatchEvent(
                                item: recorded, outcome: recorded.isUpdater ? .applied : .started, duration: duration,
                                cascadeDepth: depth, change: change)))
                }
            }
        }
    }

    /// `base` with every entry from `error` up also sent to the stream (except the host's reload and
    /// load reports, which the stream has as reload events): the failures nobody awaited.
    public func logger(_ base: Logger) -> Logger {
        Logger(label: base.label) { [self] _ in ForwardingLogHandler(base: base.handler, events: self) }
    }

    /// Sends `event` to every client's queue.
    func publish(_ event: HostEvent) {
        guard subscriberCount.load(ordering: .relaxed) > 0 else { return }
        subscribers.withLock { queues in
            for queue in queues.values { queue.push(event) }
        }
    }

    /// A queue of the events from now on, at most `limit` waiting; ``unsubscribe(_:)`` it when done.
    func subscribe(limit: Int) -> (id: Int, queue: EventQueue) {
        let queue = EventQueue(limit: limit)
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = queue }
        subscriberCount.add(1, ordering: .relaxed)
        return (id, queue)
    }

    /// Stops sending events to the queue `id` and ends it.
    func unsubscribe(_ id: Int) {
        let queue = subscribers.withLock { $0.removeValue(forKey: id) }
        if let queue {
            subscriberCount.subtract(1, ordering: .relaxed)
            queue.finish()
        }
    }

    /// Follows `host`'s reload events until the task is cancelled.
    func followReloads<S: State & Codable>(of host: PluginHost<S>) -> Task<Void, Never> {
        let reloads = host.reloadEvents()
        return Task { [weak self] in
            for await event in reloads where event.isOutcome || isMigration(event) {
                guard let self else { return }
                publish(.reload(event))
            }
        }
    }
}

private func isMigration(_ event: PluginReloadEvent) -> Bool {
    if case .migrated = event.step { true } else { false }
}
