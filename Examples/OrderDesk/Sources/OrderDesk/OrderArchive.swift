import Synchronization

/// Where archived orders go: the storage the plugin reaches as `ctx.deps.archive.put(order)`. A real
/// service would write to a database; this one keeps them in memory.
public final class OrderArchive: Sendable {
    private let orders = Mutex<[Int: Order]>([:])

    public init() {}

    /// Keeps `order`, replacing an earlier copy.
    public func put(_ order: Order) async {
        orders.withLock { $0[order.id] = order }
    }

    /// The archived order `id`, if any.
    public func order(_ id: Int) -> Order? {
        orders.withLock { $0[id] }
    }
}
