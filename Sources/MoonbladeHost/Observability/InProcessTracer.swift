import Tracing

/// A tracer whose spans stay in this process (printed, streamed, counted): it buffers nothing and
/// carries no context across a process boundary, so flushing, injecting and extracting do nothing.
public protocol InProcessTracer: Tracer {}

extension InProcessTracer {
    public func forceFlush() {}

    public func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {}

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}
}
