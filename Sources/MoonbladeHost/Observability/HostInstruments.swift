import Metrics
import Moonblade
import Tracing

/// The tracer and metrics a plugin host reports to, resolved once when the host starts.
///
/// Each is nil when nothing would receive it (no tracer or metrics backend bootstrapped, none
/// configured), and every instrumented place then costs one flag check: no span, no clock reading,
/// no metric lookup. A ``DemandDrivenTracer`` counts as none while its demand is off. A class, read in place: a struct holding an optional existential is copied
/// whole at each use, several times per dispatch.
final class HostInstruments: Sendable {
    /// Where spans go; nil when nobody listens.
    let tracer: (any Tracer)?
    /// Where counters and timers go; nil when nobody listens.
    let metrics: HostMetricsRecorder?
    /// Whether anything is measured, or traced whatever the demand.
    private let isAlwaysActive: Bool
    /// For a ``DemandDrivenTracer``: when its spans are wanted.
    private let demand: TracingDemand?

    /// Whether anything is traced or measured now.
    var isActive: Bool { isAlwaysActive || demand?.isOn == true }
    /// Whether `tracer` is set and wants spans now: the check that costs no copy of it.
    private var isTracing: Bool { isAlwaysTracing || demand?.isOn == true }
    /// `tracer` while it wants spans.
    var activeTracer: (any Tracer)? { isTracing ? tracer : nil }
    private let isAlwaysTracing: Bool

    /// The configured tracer and factory, or the bootstrapped ones unless those are the no-op defaults.
    init(tracer: (any Tracer)?, metricsFactory: (any MetricsFactory)?) {
        let tracer = tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        let factory = metricsFactory ?? MetricsSystem.factory
        metrics = factory is NOOPMetricsHandler ? nil : HostMetricsRecorder(factory: factory)
        demand = (self.tracer as? any DemandDrivenTracer)?.demand
        isAlwaysTracing = self.tracer != nil && demand == nil
        isAlwaysActive = isAlwaysTracing || metrics != nil
    }

    /// Nothing traced, nothing counted.
    static let none = HostInstruments(tracer: NoOpTracer(), metricsFactory: NOOPMetricsHandler.instance)

    /// Runs `body` in a child span of the current one, called `name` (built only when tracing).
    func span<Result, Failure: Error>(_ name: @autoclosure () -> String, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard isTracing, let tracer else { return try body() }
        let span = tracer.startSpan(name(), context: InstrumentationContext.current ?? .topLevel)
        defer { span.end() }
        return try Self.run(in: span) { () throws(Failure) in try body() }
    }

    /// Runs `body` in a child span of the current one, called `name` (built only when tracing).
    func span<Result: Sendable, Failure: Error>(
        _ name: @autoclosure () -> String, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        guard isTracing, let tracer else { return try await body() }
        let span = tracer.startSpan(name(), context: InstrumentationContext.current ?? .topLevel)
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body() }
        } catch {
            Self.fail(span, error)
            throw error as! Failure  // `withValue` rethrows only what `body` threw
        }
    }

    /// `work` in a span called `name` when tracing; `work` itself otherwise, so that nothing is
    /// allocated for it.
    func traced(_ work: @escaping PendingWork, as name: @autoclosure () -> String) -> PendingWork {
        guard isTracing else { return work }
        let name = name()
        return { try await self.span(name) { try await work() } }
    }

    /// `item` with the current span as the parent of its dispatch span, for when it runs elsewhere
    /// (queued for the thread draining the store).
    func adopting(_ item: any Dispatchable) -> any Dispatchable {
        guard isTracing, let context = InstrumentationContext.current else { return item }
        return adopting(item, under: context)
    }

    /// The context of a caller outside the store (a route, Swift code) while tracing: the parent of
    /// the dispatch span of an item it makes, which hangs there whichever thread drains it.
    var callerContext: InstrumentationContext? { isTracing ? InstrumentationContext.current : nil }

    /// `item` with `context` as the parent of its dispatch span.
    private func adopting(_ item: any Dispatchable, under context: InstrumentationContext) -> any Dispatchable {
        guard var luaItem = item as? any LuaItem else { return item }
        luaItem.traceParent = context
        return luaItem
    }

    /// A rule's `item` in a `rule <rule> <item>` span that starts now, under the current span or
    /// where `cause` (the item the rule saw) ran: the trace that holds it stays open until the span
    /// ends, which the caller does once the item is done, so the item's dispatch is in that trace.
    func startingRuleSpan(
        _ item: any Dispatchable, rule: String, itemName: String, cause: (any Dispatchable)?
    ) -> (item: any Dispatchable, span: (any Span)?) {
        guard isTracing, let tracer else { return (item, nil) }
        let parent = InstrumentationContext.current ?? (cause as? any LuaItem)?.traceParent ?? .topLevel
        let span = tracer.startSpan("rule \(rule) \(itemName)", context: parent)
        return (adopting(item, under: span.context), span)
    }

    /// Runs `body` in the span of `span`, recording a thrown error on it.
    private static func run<Result, Failure: Error>(
        in span: any Span, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        do {
            return try InstrumentationContext.$current.withValue(span.context) { try body() }
        } catch {
            fail(span, error)
            throw error as! Failure  // `withValue` rethrows only what `body` threw
        }
    }

    /// Marks `span` failed with `error`.
    static func fail(_ span: any Span, _ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
    }
}
