import Moonblade

/// The store item that runs a Lua updater: `(state, payload)` in the VM, transactionally.
struct LuaItemUpdater<S: State & Codable>: StateUpdater, LuaItem {
    let runtime: PluginRuntime<S>
    let item: String
    let payload: PluginValue

    func updateState(_ state: inout S) throws {
        state = try runtime.applyUpdater(item, to: state, payload: payload)
    }

    func replaced(by item: String, payload: PluginValue) -> Self {
        Self(runtime: runtime, item: item, payload: payload)
    }
}
