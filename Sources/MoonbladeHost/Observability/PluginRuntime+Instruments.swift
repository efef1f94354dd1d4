import Moonblade
import MoonbladeLua
import Tracing

extension PluginRuntime {
    /// Runs `body`, the dispatch of the Lua item `item`, in a `dispatch <item>` span and measures it.
    ///
    /// - Parameter parent: the span to hang it under when it runs away from where it was dispatched
    ///   (see ``HostInstruments/adopting(_:)``); the current one otherwise.
    func instrumentDispatch<Result>(
        _ item: String, kind: String, payload: PluginValue, parent: InstrumentationContext?, _ body: () throws -> Result
    ) rethrows -> Result {
        guard instruments.isActive else { return try body() }
        let dispatch = beginDispatch(item, kind: kind, payload: payload, parent: parent)
        do {
            let result =
                try dispatch.span.map { span in
                    try InstrumentationContext.$current.withValue(span.context) { try body() }
                } ?? body()
            end(dispatch, failure: nil)
            return result
        } catch {
            end(dispatch, failure: error)
            throw error
        }
    }

    /// ``instrumentDispatch(_:kind:payload:parent:_:)`` for a side effect.
    func instrumentDispatch<Result: Sendable>(
        _ item: String, kind: String, payload: PluginValue, parent: InstrumentationContext?, _ body: () async throws -> Result
    ) async throws -> Result {
        guard instruments.isActive else { return try await body() }
        let dispatch = beginDispatch(item, kind: kind, payload: payload, parent: parent)
        do {
            let result: Result
            if let span = dispatch.span {
                result = try await InstrumentationContext.$current.withValue(span.context) { try await body() }
            } else {
                result = try await body()
            }
            end(dispatch, failure: nil)
            return result
        } catch {
            end(dispatch, failure: error)
            throw error
        }
    }

    /// Runs `body`, the end of a reload of `plugin` that started at `startedAt`, in a `reload <plugin>`
    /// span from then, and counts it.
    func instrumentReload(
        _ plugin: String, startedAt: DefaultTracerClock.Instant, _ body: () async throws(PluginError) -> PluginInfo
    ) async throws(PluginError) -> PluginInfo {
        let span = instruments.activeTracer?.startSpan(
            "reload \(plugin)", context: InstrumentationContext.current ?? .topLevel, ofKind: .internal, at: startedAt)
        defer { span?.end() }
        do {
            let info = try await body()
            instruments.metrics?.reloaded(plugin, outcome: "ok")
            recordMemory()
            return info
        } catch {
            span.map { HostInstruments.fail($0, error) }
            instruments.metrics?.reloaded(plugin, outcome: "failed")
            throw error
        }
    }

    /// A dispatch being measured: its span (when tracing) and when it started (when measuring).
    private struct Dispatch {
        let item: String
        let kind: String
        let span: (any Span)?
        let start: ContinuousClock.Instant?
    }

    private func beginDispatch(_ item: String, kind: String, payload: PluginValue, parent: InstrumentationContext?) -> Dispatch {
        let span = instruments.activeTracer.map { tracer in
            let span = tracer.startSpan("dispatch \(item)", context: parent ?? InstrumentationContext.current ?? .topLevel)
            let plugin = pluginName(ofItem: item)
            span.attributes[SpanAttributeName.item] = item
            span.attributes[SpanAttributeName.kind] = kind
            span.attributes[SpanAttributeName.plugin] = plugin
            if let json = try? payload.json() {
                let text = json.jsonString()
                span.attributes[SpanAttributeName.payload] = text.count <= 80 ? text : text.prefix(79) + "…"
            }
            if let version = loadedPlugins.first(where: { $0.name == plugin })?.version {
                span.attributes[SpanAttributeName.pluginVersion] = version
            }
            return span
        }
        return Dispatch(item: item, kind: kind, span: span, start: instruments.metrics == nil ? nil : .now)
    }

    private func end(_ dispatch: Dispatch, failure: (any Error)?) {
        let outcome = failure == nil ? "ok" : "error"
        if let span = dispatch.span {
            span.attributes[SpanAttributeName.outcome] = outcome
            if let failure {
                span.attributes[SpanAttributeName.error] = "\(failure)"
                HostInstruments.fail(span, failure)
            }
            span.end()
        }
        guard let metrics = instruments.metrics, let start = dispatch.start else { return }
        metrics.dispatched(dispatch.item, kind: dispatch.kind, outcome: outcome, duration: .now - start)
        if let limit = (failure as? PluginError)?.limitKind {
            metrics.limitFailed(limit)
        }
        recordMemory()
    }

    /// Records the memory the VM holds now.
    private func recordMemory() {
        guard let metrics = instruments.metrics else { return }
        metrics.vmMemory(withLua { $0.vm.memoryInUse })
    }
}

extension PluginError {
    /// Which limit stopped the plugin code, for a ``Kind/limit`` error: `memory`, `time`, `budget`, or
    /// `interrupted` (``PluginHost/interrupt()``).
    var limitKind: String? {
        guard kind == .limit else { return nil }
        // The limits' own wordings (moonblade_limits.h, LuaStack+Calls.swift): "memory limit of …",
        // "time limit of …", "instruction budget of …", "interrupted".
        if (underlying as? LuaError)?.kind == .memory || message.contains("memory limit") { return "memory" }
        if message.hasSuffix(": interrupted") || message == "interrupted" { return "interrupted" }
        return message.contains("time limit") ? "time" : "budget"
    }
}
