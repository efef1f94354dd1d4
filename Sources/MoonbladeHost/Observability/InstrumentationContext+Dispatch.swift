import Moonblade
import Tracing

extension InstrumentationContext {
    /// The context `item` was dispatched from, as a store interceptor sees it: for a plugin's item,
    /// the span that dispatched it (a rule's, a side effect's `ctx.dispatch`), or nil when nothing
    /// traced did (a route, Swift code); for any other item, the current context.
    ///
    /// A plugin's item carries its own because it may run on whichever thread drains the store,
    /// where the current context is that of another dispatch. Set only while the host traces.
    public static func dispatchContext(of item: any Dispatchable) -> InstrumentationContext? {
        guard let luaItem = item as? any LuaItem else { return current }
        return luaItem.traceParent
    }
}
