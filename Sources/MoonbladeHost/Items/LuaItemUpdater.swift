import Moonblade
import Tracing

/// The store item that runs a Lua updater: `(state, payload)` in the VM, transactionally.
struct LuaItemUpdater<S: State & Codable>: StateUpdater, LuaItem {
    let runtime: PluginRuntime<S>
    /// The rest, behind one reference: the store passes items on as `any AnyStateUpdater` and
    /// `any Dispatchable`, which hold a value this small inline instead of boxing it (a heap box at
    /// dispatch and another for the interceptors otherwise).
    private var fields: Fields

    private enum Fields {
        /// An item dispatched by name with no payload: all it carries is what the catalog resolved,
        /// so dispatching it allocates nothing.
        case resolved(ResolvedLuaItem)
        case carried(LuaUpdaterFields)
    }

    var item: String {
        switch fields {
        case .resolved(let resolved): resolved.item
        case .carried(let fields): fields.item
        }
    }

    var payload: PluginValue {
        guard case .carried(let fields) = fields else { return .none }
        return fields.payload
    }

    /// The Lua thread of the interceptor that handed it on, if one did: it runs there.
    var thread: InterceptorThread? {
        guard case .carried(let fields) = fields else { return nil }
        return fields.thread
    }

    var traceParent: InstrumentationContext? {
        get {
            guard case .carried(let fields) = fields else { return nil }
            return fields.traceParent
        }
        set {
            fields = .carried(
                LuaUpdaterFields(item: item, resolved: resolved, payload: payload, thread: thread, traceParent: newValue))
        }
    }

    /// The item as the catalog resolved it, if the dispatch looked it up: it then runs without looking
    /// its name up again.
    private var resolved: ResolvedLuaItem? {
        switch fields {
        case .resolved(let resolved): resolved
        case .carried(let fields): fields.resolved
        }
    }

    init(
        runtime: PluginRuntime<S>, item: String, payload: PluginValue, thread: InterceptorThread? = nil,
        traceParent: InstrumentationContext? = nil
    ) {
        self.runtime = runtime
        fields = .carried(
            LuaUpdaterFields(item: item, resolved: nil, payload: payload, thread: thread, traceParent: traceParent))
    }

    /// The updater `resolved` stands for, dispatched by its name with `payload`.
    init(runtime: PluginRuntime<S>, resolved: ResolvedLuaItem, payload: PluginValue) {
        self.runtime = runtime
        guard case .none = payload else {
            fields = .carried(
                LuaUpdaterFields(item: resolved.item, resolved: resolved, payload: payload, thread: nil, traceParent: nil))
            return
        }
        fields = .resolved(resolved)
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
        state = try updated(state as! S) as! T
    }

    /// `state` with the updater applied.
    private func updated(_ state: S) throws -> S {
        // Called directly when nothing is traced or measured: no closure on the hottest path.
        guard runtime.instruments.isActive else {
            return try runtime.applyUpdater(item, resolved: resolved, to: state, payload: payload, on: thread?.stack)
        }
        return try runtime.instrumentDispatch(item, kind: "updater", payload: payload, parent: traceParent) {
            try runtime.applyUpdater(item, resolved: resolved, to: state, payload: payload, on: thread?.stack)
        }
    }

    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self {
        Self(runtime: runtime, item: item, payload: payload, thread: thread, traceParent: traceParent)
    }
}

/// What a ``LuaItemUpdater`` carries besides its runtime, when it carries more than what the catalog
/// resolved. Not generic, so making one looks up no type metadata.
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
}

/// ``LuaItemUpdater`` with its state type left out, so that the host keeps `LuaItemUpdater<S>.self`
/// once as a value carrying the type's metadata: an updater dispatched by name is made through it,
/// instead of its generic type being looked up on every dispatch.
protocol LuaNamedUpdater: AnyStateUpdater, LuaItem {
    /// ``LuaItemUpdater/init(runtime:resolved:payload:)``, the runtime given as an object.
    init(runtimeObject: AnyObject, resolved: ResolvedLuaItem, payload: PluginValue)
}

extension LuaItemUpdater: LuaNamedUpdater {
    init(runtimeObject: AnyObject, resolved: ResolvedLuaItem, payload: PluginValue) {
        self.init(runtime: pluginRuntime(kept: runtimeObject), resolved: resolved, payload: payload)
    }
}
