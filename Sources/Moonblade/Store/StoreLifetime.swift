import Synchronization

/// Whether a store is still alive, for the innermost link of its interceptor chain, which borrows the
/// store instead of holding it: a `next` kept and called after the store was released (against its
/// contract) then fails with ``StoreError/storeReleased`` instead of reaching freed memory.
final class StoreLifetime: Sendable {
    private let ended = Atomic<Bool>(false)

    var isOver: Bool { ended.load(ordering: .acquiring) }

    /// Called by the store's `deinit`.
    func end() {
        ended.store(true, ordering: .releasing)
    }
}
