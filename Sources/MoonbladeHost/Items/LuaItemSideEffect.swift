import Moonblade
import MoonbladeLua
import Tracing

/// The store item that runs a Lua side effect as a coroutine and reads its result as its reader says.
///
/// Its result is type-erased (`any Sendable`; the handle its dispatcher awaits casts it to the type it
/// awaits), so that whatever it returns its type is `LuaItemSideEffect<S>`, which the host keeps once
/// (``LuaNamedSideEffect``): a side effect dispatched by name looks up no generic metadata.
struct LuaItemSideEffect<S: State & Codable>: ReturningSideEffect, LuaItem {
    /// What the item carries besides its result reader, behind one reference: the store passes items
    /// on as `any Dispatchable` and `any AnySideEffect`, which hold a value this small (a reference and
    /// a closure) inline instead of boxing it (three heap boxes per dispatch otherwise).
    private var fields: LuaSideEffectFields
    /// Reads the side effect's first result.
    let readResult: SideEffectResultReader

    var runtime: PluginRuntime<S> { pluginRuntime(kept: fields.runtime) }
    var item: String { fields.item }
    var payload: PluginValue { fields.payload }
    var traceParent: InstrumentationContext? {
        get { fields.traceParent }
        set {
            fields = LuaSideEffectFields(
                runtime: fields.runtime, item: item, resolved: fields.resolved, payload: payload, traceParent: newValue)
        }
    }

    /// The side effect `item`, or the one `resolved` stands for (its name looked up once, by the caller).
    init(
        runtime: PluginRuntime<S>, item: String, resolved: ResolvedLuaItem? = nil, payload: PluginValue,
        readResult: SideEffectResultReader, traceParent: InstrumentationContext? = nil
    ) {
        fields = LuaSideEffectFields(
            runtime: runtime, item: resolved?.item ?? item, resolved: resolved, payload: payload, traceParent: traceParent)
        self.readResult = readResult
    }

    /// The store's entry: the result as the reader made it. (`ReturningSideEffect`'s own would box
    /// the `any Sendable` again, which every handle would then have to unwrap by a dynamic cast.)
    func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        try await sideEffect(context)
    }

    func sideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        try await run(context, ending: nil)
    }

    /// The store's entry for a dispatch whose handle waits on `ending`: a run that awaits Swift work
    /// goes on in this task, its deadline ending `ending` should it pass while the run awaits.
    func anySideEffect(_ context: any AnySideEffectContext, ending: SideEffectEnding) async throws -> any Sendable {
        try await run(context, ending: ending)
    }

    /// Runs the side effect; see ``PluginRuntime/runSideEffect(_:resolved:payload:cascadeDepth:readResult:ending:)``.
    /// Inlined: an `async` frame of its own would cost the side effect's task a slab allocation.
    @inline(__always)
    private func run(_ context: any AnySideEffectContext, ending: SideEffectEnding?) async throws -> any Sendable {
        // The store says how far down a chain of reactions this runs; what it dispatches goes one further.
        let cascadeDepth = context.cascadeDepth
        // Called directly when nothing is traced or measured: no closure, one async frame less.
        guard runtime.instruments.isActive else {
            return try await runtime.runSideEffect(
                item, resolved: fields.resolved, payload: payload, cascadeDepth: cascadeDepth, readResult: readResult,
                ending: ending)
        }
        return try await runInstrumented(cascadeDepth: cascadeDepth)
    }

    /// ``run(_:ending:)`` when something is traced or measured. Not inlined: its closure and span
    /// would otherwise take room in the frame of every run, traced or not, and that frame comes out
    /// of the side effect's task allocator, whose first slab the run's other frames nearly fill.
    ///
    /// It does not hand the run its `ending`: a deadline would then end the handle before the dispatch's
    /// span and metrics (a limit failure counted after its caller saw the error). The run keeps a task
    /// of its own for its time limit, and the store ends the handle once this returns.
    @inline(never)
    private func runInstrumented(cascadeDepth: Int) async throws -> any Sendable {
        try await runtime.instrumentDispatch(item, kind: "side_effect", payload: payload, parent: traceParent) { [fields] in
            try await runtime.runSideEffect(
                item, resolved: fields.resolved, payload: payload, cascadeDepth: cascadeDepth, readResult: readResult,
                ending: nil)
        }
    }

    func replaced(by item: String, payload: PluginValue, thread: InterceptorThread) -> Self {
        Self(runtime: runtime, item: item, payload: payload, readResult: readResult, traceParent: traceParent)
    }
}

/// ``LuaItemSideEffect`` with its state type left out, so that the host keeps `LuaItemSideEffect<S>.self`
/// once as a value carrying the type's metadata (as ``LuaNamedUpdater`` does for updaters).
protocol LuaNamedSideEffect: ReturningSideEffect, SelfEndingSideEffect, LuaItem where ReturnValue == any Sendable {
    /// ``LuaItemSideEffect/init(runtime:item:resolved:payload:readResult:traceParent:)``, the runtime
    /// given as an object.
    init(runtimeObject: AnyObject, item: String, resolved: ResolvedLuaItem, payload: PluginValue, readResult: SideEffectResultReader)
}

extension LuaItemSideEffect: LuaNamedSideEffect {
    init(runtimeObject: AnyObject, item: String, resolved: ResolvedLuaItem, payload: PluginValue, readResult: SideEffectResultReader) {
        self.init(runtime: pluginRuntime(kept: runtimeObject), item: item, resolved: resolved, payload: payload, readResult: readResult)
    }
}

/// What a ``LuaItemSideEffect`` carries besides its result reader. Not generic, so that making one for
/// each dispatch looks up no type metadata: its runtime, the item's `PluginRuntime<S>`, is kept as an
/// object.
private final class LuaSideEffectFields: @unchecked Sendable {
    // @unchecked: `runtime` is a `PluginRuntime`, which is Sendable; typed `AnyObject`, it is stored
    // without a look-up of `PluginRuntime<S>`'s metadata.
    let runtime: AnyObject
    let item: String
    /// The item as the catalog resolved it, when it was dispatched by name.
    let resolved: ResolvedLuaItem?
    let payload: PluginValue
    let traceParent: InstrumentationContext?

    init(
        runtime: AnyObject, item: String, resolved: ResolvedLuaItem?, payload: PluginValue,
        traceParent: InstrumentationContext?
    ) {
        (self.runtime, self.item, self.resolved, self.payload, self.traceParent) = (runtime, item, resolved, payload, traceParent)
    }
}
