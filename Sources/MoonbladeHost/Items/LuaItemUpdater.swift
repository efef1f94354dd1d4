import Moonblade

/// The store item that runs a Lua updater: `(state, payload)` in the VM, transactionally.
struct LuaItemUpdater<S: State & Codable>: StateUpdater {
    let runtime: PluginRuntime<S>
    let item: String
    let payload: PluginValue

    func updateState(_ state: inout S) throws {
        state = try runtime.applyUpdater(item, to: state, payload: payload)
    }
}
