import Moonblade
import Tracing

/// A store item that runs a Lua item by name: what the plugins' interceptors and rules see of it.
protocol LuaItem: Dispatchable {
    /// The item name, `plugin.item`.
    var item: String { get }
    var payload: PluginValue { get }
    /// The span its dispatch span hangs under, when it runs away from where it was dispatched.
    var traceParent: InstrumentationContext? { get set }

    /// The same kind of item, running `item` with `payload` in this one's place (a returning side
    /// effect keeps reading its result as the type its dispatcher awaits), handed on by a Lua
    /// interceptor running on `thread`.
    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self
}
