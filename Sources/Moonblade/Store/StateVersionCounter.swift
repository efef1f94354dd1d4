import Synchronization

/// How many state values a store has stored: its ``Store/stateVersion``, readable by whoever holds
/// the counter without reaching the store.
///
/// The plugin host reads it on every Lua dispatch to tell whether its Lua copy of the state is
/// current; through the store's weak ``InterceptorContext`` that read cost ~370 instructions of a Lua
/// counter dispatch (`Scripts/profile dispatch lua`), here one load.
package final class StateVersionCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    package var value: UInt64 { count.load(ordering: .acquiring) }

    /// Counts one more state value; by the draining thread, under the store's lock (so that the state
    /// and its version are read together there).
    func advance() {
        count.wrappingAdd(1, ordering: .releasing)
    }
}
