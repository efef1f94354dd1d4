/// An item waiting in a store's queue, with the box its dispatcher's handle waits on.
struct PendingDispatch: Sendable {
    let item: DispatchItem
    /// How many reactions down a chain the item was dispatched; see ``Store/cascadeDepth``.
    let cascadeDepth: Int
    let completion: DispatchCompletion
}
