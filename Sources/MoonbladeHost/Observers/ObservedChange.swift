import Moonblade

/// The store's state before and after an item, with the version of each (see
/// `Store.stateVersion`), for the observer rules that follow it.
struct ObservedChange {
    let old: any State
    let oldVersion: UInt64
    let new: any State
    let newVersion: UInt64
}

/// An item the store handled, under its name if it has one, and the change it made.
struct ObservedDelivery {
    let item: any Dispatchable
    let name: String?
    let change: ObservedChange
}
