// The example of the "Observability" article, compiled here where InMemoryTracing is at hand.

// snippet: observability-in-memory-tracer
import InMemoryTracing
import MoonbladeHost

func traceOneDispatch() async throws {
    let tracer = InMemoryTracer()
    let host = try PluginHost<JSONValue>(plugins: ["Plugins/todo"], configuration: .init(tracer: tracer))
    _ = try await host.dispatch("todo.load", returning: Int.self).value
    for span in tracer.finishedSpans { print(span.operationName, span.attributes) }
}
// end snippet
