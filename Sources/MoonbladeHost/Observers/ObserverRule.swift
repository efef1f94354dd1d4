import MoonbladeLua

/// One rule of a plugin's `observers`: what it watches and what it dispatches when that happens.
///
/// The Lua counterpart of an ``ObserverInterceptor`` rule; see `DESIGN.md` for the table format.
struct ObserverRule {
    enum Trigger {
        /// `on_start`: when the store starts.
        case start
        /// `on_dispatch = "plugin.item"`: after an item of that name (Lua or a registered Swift one).
        case dispatch(String)
        /// `on_state_change = function(old, new)`: after an updater, if the predicate is true.
        case stateChange(LuaReference)
        /// `on_notification = "name"`: when the host posts that notification.
        case notification(String)
    }

    /// One entry of the rule's `dispatch` list.
    struct Dispatch {
        enum Payload {
            case none
            case value(LuaValue)
            /// Called with the event's values (the notification payload, or the item and states).
            case function(LuaReference)
        }

        let item: String
        let payload: Payload
    }

    let plugin: String
    /// Its position in the plugin's `observers` list, from 1.
    let position: Int
    let trigger: Trigger
    let dispatches: [Dispatch]
    /// Where the rule is written.
    let location: LuaLocation

    /// Whether a payload is made by a function of the event.
    var hasPayloadFunction: Bool {
        dispatches.contains { if case .function = $0.payload { true } else { false } }
    }

    /// The item names the rule refers to: the item it watches (`on_dispatch`) and those it dispatches.
    var itemNames: [String] {
        var names = dispatches.map(\.item)
        if case .dispatch(let observed) = trigger { names.insert(observed, at: 0) }
        return names
    }

    /// How errors name the rule: `todo.observers[2]`.
    var name: String { "\(plugin).observers[\(position)]" }
}
