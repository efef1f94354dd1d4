/// A listener registered with a store, and the id its unsubscribe closure removes it by.
struct StoreListenerEntry<S>: Sendable {
    let id: Int
    let callback: StoreListener<S>
}
