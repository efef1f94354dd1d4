import Moonblade
import Tracing

/// The store item that runs a Lua updater: `(state, payload)` in the VM, transactionally.
struct LuaItemUpdater<S: State & Codable>: StateUpdater, LuaItem {
    let runtime: PluginRuntime<S>
    /// The rest, behind one reference: the store passes items on as `any AnyStateUpdater` and
    /// `any Dispatchable`, which hold a value this small inline instead of boxing it (a heap box at
    /// dispatch and another for the interceptors otherwise).
    private var fields: LuaUpdaterFields

    var item: String { fields.item }
    var payload: PluginValue { fields.payload }
    /// The Lua thread of the interceptor that handed it on, if one did: it runs there.
    var thread: InterceptorThread? { fields.thread }
    var traceParent: InstrumentationContext? {
        get { fields.traceParent }
        set { fields = fields.with(traceParent: newValue) }
    }

    /// - Parameter resolved: the item as the catalog resolved it, when the dispatch looked it up
    ///   (it then runs without looking its name up again).
    init(
        runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue,
        thread: InterceptorThread? = nil, traceParent: InstrumentationContext? = nil
    ) {
        self.runtime = runtime
        fields = LuaUpdaterFields(item: item, resolved: resolved, payload: payload, thread: thread, traceParent: traceParent)
    }

    func updateState(_ state: inout S) throws {
        state = try updated(state)
    }

    /// The store's entry point, implemented here rather than by `StateUpdater`, whose version looks up
    /// this generic type's conformance to it on every call.
    func updateAnyState<T: State>(_ state: inout T) throws {
        guard T.self == S.self else {
            throw StoreError.typeMismatch(expected: String(reflecting: S.self), found: String(reflecting: T.self))
        }
        // The types are the same, so these casts are identities.
        state = unsafeBitCast(try updated(unsafeBitCast(state, to: S.self)), to: T.self)
    }

    /// `state` with the updater applied.
    private func updated(_ state: S) throws -> S {
        // Called directly when nothing is traced or measured: no closure on the hottest path.
        guard runtime.instruments.isActive else {
            return try runtime.applyUpdater(item, resolved: fields.resolved, to: state, payload: payload, on: thread?.stack)
        }
        return try runtime.instrumentDispatch(item, kind: "updater", parent: traceParent) {
            try runtime.applyUpdater(item, resolved: fields.resolved, to: state, payload: payload, on: thread?.stack)
        }
    }

    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self {
        Self(runtime: runtime, item: item, payload: payload, thread: thread, traceParent: traceParent)
    }
}

/// What a ``LuaItemUpdater`` carries besides its runtime. Not generic, so making one looks up no
/// type metadata.
private final class LuaUpdaterFields: Sendable {
    let item: String
    let resolved: ResolvedLuaItem?
    let payload: PluginValue
    let thread: InterceptorThread?
    let traceParent: InstrumentationContext?

    init(
        item: String, resolved: ResolvedLuaItem?, payload: PluginValue, thread: InterceptorThread?,
        traceParent: InstrumentationContext?
    ) {
        (self.item, self.resolved, self.payload, self.thread, self.traceParent) =
            (item, resolved, payload, thread, traceParent)
    }

    /// These fields with `traceParent` in place of this one's.
    func with(traceParent: InstrumentationContext?) -> LuaUpdaterFields {
        LuaUpdaterFields(item: item, resolved: resolved, payload: payload, thread: thread, traceParent: traceParent)
    }
}
