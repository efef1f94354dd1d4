import Moonblade
import Tracing

/// The store item that runs a Lua updater: `(state, payload)` in the VM, transactionally.
struct LuaItemUpdater<S: State & Codable>: StateUpdater, LuaItem {
    let runtime: PluginRuntime<S>
    let item: String
    let payload: PluginValue
    /// The Lua thread of the interceptor that handed it on, if one did: it runs there.
    var thread: InterceptorThread?
    var traceParent: InstrumentationContext?

    func updateState(_ state: inout S) throws {
        // Called directly when nothing is traced or measured: no closure on the hottest path.
        guard runtime.instruments.isActive else {
            state = try runtime.applyUpdater(item, to: state, payload: payload, on: thread?.stack)
            return
        }
        state = try runtime.instrumentDispatch(item, kind: "updater", parent: traceParent) {
            try runtime.applyUpdater(item, to: state, payload: payload, on: thread?.stack)
        }
    }

    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self {
        Self(runtime: runtime, item: item, payload: payload, thread: thread, traceParent: traceParent)
    }
}
