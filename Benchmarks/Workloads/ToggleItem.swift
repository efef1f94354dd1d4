import Moonblade

/// The native twin of a Lua updater that flips one item's `done`: on a store that keeps the old state
/// for its listeners, it pays a copy-on-write of the whole `items` array.
public struct ToggleItem: StateUpdater {
    public let index: Int

    public init(index: Int) {
        self.index = index
    }

    public func updateState(_ state: inout ItemsState) { state.items[index].done.toggle() }
}
