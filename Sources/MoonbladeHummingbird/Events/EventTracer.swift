import MoonbladeHost
import Tracing

/// The tracer of ``HostEvents/tracer()``: keeps each dispatch's spans as a tree for the event
/// stream, and wants them only while a client is connected.
struct EventTracer: DemandDrivenTracer, InProcessTracer {
    let demand: TracingDemand

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> EventSpan {
        var context = context()
        let start = instant().nanosecondsSinceEpoch
        let parent = context.eventSpan
        // A dispatch span starts inside the interceptor that reported its dispatch, which left the
        // record in the current context; a nested one that record has already claims none.
        let intercepted = operationName.hasPrefix("dispatch ") ? InstrumentationContext.current?.dispatchRecord : nil
        let span =
            intercepted?.claim { EventSpan(operationName, start: start, owner: intercepted, isDispatch: true) }
            ?? EventSpan(
                operationName, start: start, owner: parent?.owner ?? context.dispatchRecord, isDispatch: false,
                isInRule: operationName.hasPrefix("rule ") || parent?.isInRule == true)
        // Under the span it started in; a rule's span, started once its dispatch's span ended, under that one.
        if let parent {
            parent.adopt(span)
        } else if let record = context.dispatchRecord, let root = record.root, root !== span {
            root.adopt(span)
        }
        context.eventSpan = span
        context.dispatchRecord = nil
        span.context = context
        return span
    }
}

extension InstrumentationContext {
    /// The span of the event tracer this context is in.
    var eventSpan: EventSpan? {
        get { self[EventSpanKey.self] }
        set { self[EventSpanKey.self] = newValue }
    }

    /// Who dispatches from this context, when it is not a span of the stream's: a route, a command line.
    var dispatchOrigin: DispatchRecord.Origin? {
        get { self[DispatchOriginKey.self] }
        set { self[DispatchOriginKey.self] = newValue }
    }

    /// The dispatch whose interceptor runs in this context (its dispatch span not started yet, or
    /// ended: a rule's span then hangs under it).
    var dispatchRecord: DispatchRecord? {
        get { self[DispatchRecordKey.self] }
        set { self[DispatchRecordKey.self] = newValue }
    }
}

private enum EventSpanKey: InstrumentationContextKey {
    typealias Value = EventSpan
}

private enum DispatchRecordKey: InstrumentationContextKey {
    typealias Value = DispatchRecord
}

private enum DispatchOriginKey: InstrumentationContextKey {
    typealias Value = DispatchRecord.Origin
}
