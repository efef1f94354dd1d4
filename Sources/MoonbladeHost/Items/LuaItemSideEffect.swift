import Moonblade
import MoonbladeLua
import Tracing

/// The store item that runs a Lua side effect as a coroutine and reads its result as `Result`.
struct LuaItemSideEffect<S: State & Codable, Result: Sendable>: ReturningSideEffect, LuaItem {
    /// Reads the side effect's first result (at the given index) into `Result`.
    typealias ResultReader = @Sendable (_ stack: LuaStack, _ index: Int32, _ decoder: LuaDecoder) throws -> Result

    /// What the item carries, behind one reference: the store passes items on as `any Dispatchable`
    /// and `any AnySideEffect`, which hold a value this small inline instead of boxing it (three heap
    /// boxes per dispatch otherwise).
    private final class Fields: Sendable {
        let runtime: PluginRuntime<S>
        let item: String
        /// The item as the catalog resolved it, when it was dispatched by name.
        let resolved: ResolvedLuaItem?
        let payload: PluginValue
        let readResult: ResultReader
        let traceParent: InstrumentationContext?

        init(
            runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem?, payload: PluginValue,
            readResult: @escaping ResultReader, traceParent: InstrumentationContext?
        ) {
            (self.runtime, self.item, self.resolved, self.payload, self.readResult, self.traceParent) =
                (runtime, item, resolved, payload, readResult, traceParent)
        }
    }

    private var fields: Fields

    var runtime: PluginRuntime<S> { fields.runtime }
    var item: String { fields.item }
    var payload: PluginValue { fields.payload }
    var readResult: ResultReader { fields.readResult }
    var traceParent: InstrumentationContext? {
        get { fields.traceParent }
        set {
            fields = Fields(
                runtime: runtime, item: item, resolved: fields.resolved, payload: payload, readResult: readResult,
                traceParent: newValue)
        }
    }

    /// The side effect `item`, or the one `resolved` stands for (its name looked up once, by the caller).
    init(
        runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue,
        readResult: @escaping ResultReader, traceParent: InstrumentationContext? = nil
    ) {
        fields = Fields(
            runtime: runtime, item: resolved?.item ?? item, resolved: resolved, payload: payload, readResult: readResult,
            traceParent: traceParent)
    }

    func sideEffect(_ context: any AnySideEffectContext) async throws -> Result {
        // The store says how far down a chain of reactions this runs; what it dispatches goes one further.
        let cascadeDepth = context.cascadeDepth
        // Called directly when nothing is traced or measured: no closure, one async frame less.
        guard runtime.instruments.isActive else {
            return try await runtime.runSideEffect(
                item, resolved: fields.resolved, payload: payload, cascadeDepth: cascadeDepth, readResult: readResult)
        }
        return try await runtime.instrumentDispatch(item, kind: "side_effect", parent: traceParent) { [fields] in
            try await runtime.runSideEffect(
                item, resolved: fields.resolved, payload: payload, cascadeDepth: cascadeDepth, readResult: readResult)
        }
    }

    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self {
        Self(runtime: runtime, item: item, payload: payload, readResult: readResult, traceParent: traceParent)
    }
}

extension LuaItemSideEffect where Result: Decodable {
    init(runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue) {
        self.init(runtime: runtime, item: item, resolved: resolved, payload: payload) { stack, index, decoder in
            try decoder.decode(Result.self, from: stack, at: index)
        }
    }
}

extension LuaItemSideEffect where Result == LuaValue {
    init(runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue) {
        self.init(runtime: runtime, item: item, resolved: resolved, payload: payload) { stack, index, _ in try stack.value(at: index) }
    }
}

extension LuaItemSideEffect where Result == Void {
    init(runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue) {
        self.init(runtime: runtime, item: item, resolved: resolved, payload: payload) { _, _, _ in }
    }
}
