import Tracing

/// A tracer whose spans are wanted only at times: the host makes spans for it only while its
/// ``demand`` is on.
public protocol DemandDrivenTracer: Tracer {
    /// Whether spans are wanted now.
    var demand: TracingDemand { get }
}
