import Foundation
import MoonbladeHost
import Tracing

/// A span of ``TreeTracer``: its name, times, outcome and children, until its tree is printed.
final class TreeSpan: Span, @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only inside `lock`.
    private let lock = NSLock()
    private var name: String
    private var spanAttributes = SpanAttributes()
    private var failure: String?
    private var children: [TreeSpan] = []
    private var endTime: UInt64?
    private let startTime: UInt64
    private let parent: TreeSpan?
    /// Called with the span when it ends, if it has no parent.
    private let onRootEnd: @Sendable (TreeSpan) -> Void
    /// Set once by the tracer, before the span is handed out.
    nonisolated(unsafe) var context = InstrumentationContext.topLevel

    init(_ name: String, parent: TreeSpan?, start: UInt64, onRootEnd: @escaping @Sendable (TreeSpan) -> Void) {
        self.name = name
        self.parent = parent
        startTime = start
        self.onRootEnd = onRootEnd
    }

    var operationName: String {
        get { lock.withLock { name } }
        set { lock.withLock { name = newValue } }
    }

    var attributes: SpanAttributes {
        get { lock.withLock { spanAttributes } }
        set { lock.withLock { spanAttributes = newValue } }
    }

    var isRecording: Bool { lock.withLock { endTime == nil } }

    func setStatus(_ status: SpanStatus) {
        guard status.code == .error else { return }
        lock.withLock { failure = failure ?? status.message ?? "error" }
    }

    func addEvent(_ event: SpanEvent) {}

    func addLink(_ link: SpanLink) {}

    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        lock.withLock { failure = "\(error)" }
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let time = instant().nanosecondsSinceEpoch
        lock.withLock { endTime = endTime ?? time }
        if parent == nil { onRootEnd(self) }
    }

    /// Makes `child` one of this span's children.
    func adopt(_ child: TreeSpan) {
        lock.withLock { children.append(child) }
    }

    /// The span and its descendants, one per line, indented by depth:
    /// `name duration [ok | error: message]`, with `trace: ` before the top one.
    func rendered() -> String {
        lines(depth: 0).joined(separator: "\n")
    }

    private func lines(depth: Int) -> [String] {
        let (name, attributes, failure, endTime, children) = lock.withLock {
            (self.name, spanAttributes, self.failure, self.endTime, self.children)
        }
        var line = (depth == 0 ? "trace: " : String(repeating: "  ", count: depth)) + name
        line += endTime.map { " " + Self.format(nanoseconds: $0 &- startTime) } ?? " (still running)"
        if case .string(let outcome)? = attributes.get(SpanAttributeName.outcome) {
            line += " " + outcome
        }
        if let failure, depth == 0 || attributes.get(SpanAttributeName.outcome) != nil {
            line += ": " + failure
        }
        return [line] + children.sorted { $0.startTime < $1.startTime }.flatMap { $0.lines(depth: depth + 1) }
    }

    /// `812 ns`, `9.80 µs`, `0.42 ms`, `1.30 s`.
    static func format(nanoseconds: UInt64) -> String {
        switch nanoseconds {
        case ..<1000: "\(nanoseconds) ns"
        case ..<100_000: String(format: "%.2f µs", Double(nanoseconds) / 1e3)
        case ..<1_000_000_000: String(format: "%.2f ms", Double(nanoseconds) / 1e6)
        default: String(format: "%.2f s", Double(nanoseconds) / 1e9)
        }
    }
}
