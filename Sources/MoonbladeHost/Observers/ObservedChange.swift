import Moonblade

/// The store's state before and after an item, with the generation of each (see
/// `Store.stateGeneration`), for the observer rules that follow it.
struct ObservedChange {
    let old: any State
    let oldGeneration: UInt64
    let new: any State
    let newGeneration: UInt64
}
