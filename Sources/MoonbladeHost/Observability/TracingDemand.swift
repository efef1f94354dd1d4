import Synchronization

/// Whether anyone wants spans right now: a host whose tracer has one (``DemandDrivenTracer``) makes
/// spans only while it is on, and otherwise runs as if no tracer were configured.
///
/// A devtools page is the case in point: with no page open, a dispatch must cost what it costs
/// untraced, which one relaxed atomic load per instrumented place comes within.
public final class TracingDemand: Sendable {
    private let listeners = Atomic<Int>(0)

    /// Off until someone ``begin()``s listening.
    public init() {}

    /// Whether spans are wanted.
    public var isOn: Bool { listeners.load(ordering: .relaxed) > 0 }

    /// Counts a listener in: spans are wanted from now on.
    public func begin() {
        listeners.add(1, ordering: .relaxed)
    }

    /// Counts a listener out: with none left, no more spans are made.
    public func end() {
        listeners.subtract(1, ordering: .relaxed)
    }
}
