/// An item waiting in a store's queue, with the box its dispatcher's handle waits on.
struct PendingDispatch: Sendable {
    let item: DispatchItem
    let completion: DispatchCompletion
}
