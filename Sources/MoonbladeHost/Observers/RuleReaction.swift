import Moonblade

/// An item an observer rule dispatches, made with the VM held and dispatched after it is released.
struct RuleReaction {
    let item: any Dispatchable
    let cascadeDepth: Int
    /// The rule's name (`todo.observers[2]`), its plugin and the name of the item, for reports.
    let rule: String
    let plugin: String
    let itemName: String
}
