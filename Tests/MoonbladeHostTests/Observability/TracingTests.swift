import InMemoryTracing
import MoonbladeHost
import Testing
import Tracing

@Suite("Tracing")
struct TracingTests {
    let tracer = InMemoryTracer()
    let scratch = ScratchPlugins()

    let plugin = """
        return {
          name = "obs", version = 3,
          updaters = {
            bump = function(state, p) state.counter = state.counter + p.by end,
            fail = function(state) error("refused") end,
          },
          side_effects = {
            fetch = function(ctx)
              local n = ctx.deps.remote.count {}
              ctx.dispatch("obs.bump", { by = n })
              return ctx.state().counter
            end,
          },
        }
        """

    func host() throws -> PluginHost<AppState> {
        var dependencies = PluginDependencies()
        dependencies.expose("remote", "count") { (_: JSONValue) async throws -> Int in
            try await Task.sleep(for: .milliseconds(5))
            return 4
        }
        let host = try PluginHost<AppState>(
            plugins: [try scratch.write("obs", plugin)], dependencies: dependencies,
            // A side effect time limit no run reaches (the default 30 s was, once, under ThreadSanitizer):
            // the trace, not the limit, is under test.
            configuration: .init(sideEffectTimeLimit: .seconds(24 * 3600), tracer: tracer))
        #expect(host.loadErrors.isEmpty)
        return host
    }

    @Test func aSideEffectsSpanIsTheParentOfWhatItAwaitsAndDispatches() async throws {
        let host = try host()
        #expect(try await host.dispatch("obs.fetch", returning: Int.self).value == 4)

        let tree = SpanTree(tracer.finishedSpans)
        #expect(
            tree.outline == """
                dispatch obs.fetch
                  lua
                  await ctx.deps.remote.count
                  lua
                  await ctx.dispatch obs.bump
                    dispatch obs.bump
                      state to lua
                      lua
                      state from lua
                  lua
                    state to lua
                """)
        let fetch = try #require(tree.spans.first { $0.operationName == "dispatch obs.fetch" })
        #expect(fetch.attributes.get(SpanAttributeName.item) == "obs.fetch")
        #expect(fetch.attributes.get(SpanAttributeName.kind) == "side_effect")
        #expect(fetch.attributes.get(SpanAttributeName.plugin) == "obs")
        #expect(fetch.attributes.get(SpanAttributeName.pluginVersion) == 3)
        #expect(fetch.attributes.get(SpanAttributeName.outcome) == "ok")
        let bump = try #require(tree.spans.first { $0.operationName == "dispatch obs.bump" })
        #expect(bump.attributes.get(SpanAttributeName.kind) == "updater")
        #expect(bump.traceID == fetch.traceID)
    }

    @Test func aFailingDispatchCarriesItsErrorAndPlace() async throws {
        let host = try host()
        await #expect(throws: PluginError.self) { try await host.dispatch("obs.fail").value }
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "dispatch obs.fail" })
        #expect(span.attributes.get(SpanAttributeName.outcome) == "error")
        #expect(span.attributes.get(SpanAttributeName.error) == "obs.fail: obs/plugin.lua:5: refused")
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
        #expect(host.state == AppState())
    }

    @Test func aReloadIsASpanThatSaysHowItEnded() async throws {
        let host = try host()
        try await host.reload(plugin: "obs")
        _ = try scratch.write("obs", "return { name = 'obs', updaters = { bump = 42 } }")
        await #expect(throws: PluginError.self) { try await host.reload(plugin: "obs") }
        let reloads = tracer.finishedSpans.filter { $0.operationName == "reload obs" }
        #expect(reloads.map { $0.status?.code } == [nil, .error])
        #expect(reloads[1].errors.first.map { "\($0.error)" }?.contains("obs/plugin.lua:1") == true)
    }
}

/// Finished spans as an indented outline of operation names, children in start order.
struct SpanTree {
    let spans: [FinishedInMemorySpan]

    init(_ spans: [FinishedInMemorySpan]) {
        self.spans = spans
    }

    var outline: String {
        let roots = spans.filter { span in !spans.contains { $0.spanID == span.parentSpanID } }
        return roots.sorted(by: startsEarlier).flatMap { lines(of: $0, depth: 0) }.joined(separator: "\n")
    }

    private func lines(of span: FinishedInMemorySpan, depth: Int) -> [String] {
        let children = spans.filter { $0.parentSpanID == span.spanID }.sorted(by: startsEarlier)
        return [String(repeating: "  ", count: depth) + span.operationName]
            + children.flatMap { lines(of: $0, depth: depth + 1) }
    }

    private func startsEarlier(_ a: FinishedInMemorySpan, _ b: FinishedInMemorySpan) -> Bool {
        a.startInstant.nanosecondsSinceEpoch < b.startInstant.nanosecondsSinceEpoch
    }
}
