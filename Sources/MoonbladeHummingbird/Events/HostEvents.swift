import Logging
import Moonblade
import MoonbladeHost
import Synchronization
import Tracing

/// What happens in a plugin host, for the routes' live event stream: every dispatch with its outcome
/// and diff, every reload, every failure that reached only the log.
///
/// Give the host its ``interceptor()`` (and its logger through ``logger(_:)``, and for each
/// dispatch's span tree its ``tracer()``) when you make it, then hand this to ``HostRoutes``:
///
/// ```swift
/// let events = HostEvents()
/// let host = try PluginHost<AppState>(
///     plugins: ["Plugins/orders"], interceptors: [events.interceptor()],
///     configuration: .init(logger: events.logger(Logger(label: "app")), tracer: events.tracer()))
/// ```
///
/// Dispatch never waits for a client: each client has a bounded queue (see
/// ``HostRoutes/Configuration/eventQueueLimit``) that drops what it cannot hold and then tells the
/// client how many events it missed. Payloads, states, diffs and spans are turned into JSON on the
/// client's own task, never on the store's. With no client connected, the interceptor and each
/// traced place cost one atomic load, and no span is made.
public final class HostEvents: Sendable {
    private let subscribers = Mutex<[Int: EventQueue]>([:])
    /// On while a client is connected: the interceptor and the tracer work only then.
    private let demand = TracingDemand()
    private let nextID = Atomic<Int>(0)
    private let nextDispatchID = Atomic<Int>(0)

    /// A hub with no client yet.
    public init() {}

    /// The store interceptor that reports each dispatch: put it first in the host's `interceptors`,
    /// where it sees the whole chain's outcome (a Lua interceptor's refusal included).
    public func interceptor() -> StoreInterceptor {
        { [self] context in
            { next in
                { item in
                    guard self.demand.isOn else { return try next(item) }
                    let recorded = RecordedItem(item)
                    let old = recorded.isUpdater ? context.getAnyState() : nil
                    let depth = context.cascadeDepth
                    let record = self.record(of: item, isSideEffect: !recorded.isUpdater)
                    // Where the item's dispatch span, and the spans of the rules it sets off, find it.
                    var inner = InstrumentationContext.current ?? .topLevel
                    inner.eventSpan = nil
                    inner.dispatchRecord = record
                    let start = ContinuousClock.now
                    do {
                        try InstrumentationContext.$current.withValue(inner) { try next(item) }
                    } catch {
                        self.publish(
                            .dispatch(
                                DispatchEvent(
                                    item: recorded, outcome: .failed(error), duration: start.duration(to: .now),
                                    cascadeDepth: depth, change: nil, record: record, spans: record.reported())))
                        throw error
                    }
                    let duration = start.duration(to: .now)
                    let change = old.map { (old: $0, new: context.getAnyState()) }
                    self.publish(
                        .dispatch(
                            DispatchEvent(
                                item: recorded, outcome: recorded.isUpdater ? .applied : .started, duration: duration,
                                cascadeDepth: depth, change: change, record: record, spans: record.reported())))
                }
            }
        }
    }

    /// The tracer that gives each dispatch on the stream its span tree (the Lua call, the state
    /// mapping, each await, the rules and the dispatches under it): the host's `tracer`. It asks for
    /// spans only while a client is connected; the host makes none otherwise.
    public func tracer() -> some Tracer {
        EventTracer(demand: demand)
    }

    /// A new dispatch of `item`, under the one that dispatched it.
    private func record(of item: any Dispatchable, isSideEffect: Bool) -> DispatchRecord {
        let from = InstrumentationContext.dispatchContext(of: item)
        let parent = from?.eventSpan?.owner ?? from?.dispatchRecord
        let origin: DispatchRecord.Origin =
            if let parent {
                from?.eventSpan?.isInRule == true ? .rule : parent.isSideEffect ? .sideEffect : .reaction
            } else {
                from?.dispatchOrigin ?? .direct
            }
        return DispatchRecord(
            id: nextDispatchID.add(1, ordering: .relaxed).newValue, parentID: parent?.id, origin: origin,
            isSideEffect: isSideEffect
        ) { [weak self] record, spans in
            self?.publish(.spans(record, spans))
        }
    }

    /// `base` with every entry from `error` up also sent to the stream (except the host's reload and
    /// load reports, which the stream has as reload events): the failures nobody awaited.
    public func logger(_ base: Logger) -> Logger {
        Logger(label: base.label) { [self] _ in ForwardingLogHandler(base: base.handler, events: self) }
    }

    /// Sends `event` to every client's queue.
    func publish(_ event: HostEvent) {
        guard demand.isOn else { return }
        subscribers.withLock { queues in
            for queue in queues.values { queue.push(event) }
        }
    }

    /// The stream's messages from now on, as JSON text, as a WebSocket client of the routes gets them
    /// (`missed` in the place of what a slow reader lost), for a reader in this process; reading stops
    /// when the stream is dropped or its task cancelled.
    public func messages(limit: Int = 1024) -> AsyncStream<String> {
        let (id, queue) = subscribe(limit: limit)
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let reading = Task {
            while let entry = await queue.next() {
                continuation.yield(entry.json().jsonString())
            }
            continuation.finish()
        }
        continuation.onTermination = { [weak self] _ in
            reading.cancel()
            self?.unsubscribe(id)
        }
        return stream
    }

    /// A queue of the events from now on, at most `limit` waiting; ``unsubscribe(_:)`` it when done.
    func subscribe(limit: Int) -> (id: Int, queue: EventQueue) {
        let queue = EventQueue(limit: limit)
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = queue }
        demand.begin()
        return (id, queue)
    }

    /// Stops sending events to the queue `id` and ends it.
    func unsubscribe(_ id: Int) {
        let queue = subscribers.withLock { $0.removeValue(forKey: id) }
        if let queue {
            demand.end()
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
