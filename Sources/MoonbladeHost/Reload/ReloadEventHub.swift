import Moonblade

/// Hands every reload event to each of its subscribers' streams.
final class ReloadEventHub: Sendable {
    private let subscribers = LockedSubscribers()

    /// A stream of the events from now on, until the subscriber stops iterating or the host is freed.
    func subscribe() -> AsyncStream<PluginReloadEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PluginReloadEvent.self)
        let id = subscribers.add(continuation)
        continuation.onTermination = { [subscribers] _ in subscribers.remove(id) }
        return stream
    }

    func send(_ event: PluginReloadEvent) {
        for continuation in subscribers.all { continuation.yield(event) }
    }

    deinit {
        for continuation in subscribers.all { continuation.finish() }
    }
}

/// The hub's continuations, behind a lock.
private final class LockedSubscribers: @unchecked Sendable {
    // @unchecked Sendable: `continuations` and `nextID` are touched only inside `lock`.
    private let lock = Lock()
    private var continuations: [Int: AsyncStream<PluginReloadEvent>.Continuation] = [:]
    private var nextID = 0

    func add(_ continuation: AsyncStream<PluginReloadEvent>.Continuation) -> Int {
        lock.withLock {
            nextID += 1
            continuations[nextID] = continuation
            return nextID
        }
    }

    func remove(_ id: Int) {
        lock.withLock { continuations[id] = nil }
    }

    var all: [AsyncStream<PluginReloadEvent>.Continuation] {
        lock.withLock { Array(continuations.values) }
    }
}
