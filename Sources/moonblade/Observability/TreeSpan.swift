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
    /// The trace this span is printed in.
    let tree: TraceTree
    /// For a top-level span started under a span whose trace was printed already: that span's name.
    private let cause: String?
    /// Called with the span when it ends.
    private let onEnd: @Sendable (TreeSpan) -> Void
    /// Set once by the tracer, before the span is handed out.
    nonisolated(unsafe) var context = InstrumentationContext.topLevel

    init(
        _ name: String, parent: TreeSpan?, tree: TraceTree, start: UInt64, cause: String? = nil,
        onEnd: @escaping @Sendable (TreeSpan) -> Void
    ) {
        self.name = name
        self.parent = parent
        self.tree = tree
        self.cause = cause
        startTime = start
        self.onEnd = onEnd
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
        let first = lock.withLock {
            defer { endTime = endTime ?? time }
            return endTime == nil
        }
        guard first else { return }
        onEnd(self)
        tree.leave()
    }

    /// Makes `child` one of this span's children.
    func adopt(_ child: TreeSpan) {
        lock.withLock { children.append(child) }
    }

    /// The span and its descendants, one per line, indented by depth: `start name [payload] duration
    /// [ok | error: message]`, with `trace: ` before the top one.
    func rendered() -> String {
        lines(depth: 0).joined(separator: "\n")
    }

    private func lines(depth: Int) -> [String] {
        let (name, attributes, failure, endTime, children) = lock.withLock {
            (self.name, spanAttributes, self.failure, self.endTime, self.children)
        }
        var line = (depth == 0 ? "trace: " : String(repeating: "  ", count: depth)) + Self.clock(startTime) + " " + name
        if case .string(let payload)? = attributes.get(SpanAttributeName.payload) { line += " " + payload }
        if depth == 0, let cause { line += " (after \(cause))" }
        line += endTime.map { " " + Self.format(nanoseconds: $0 &- startTime) } ?? " (still running)"
        if case .string(let outcome)? = attributes.get(SpanAttributeName.outcome) {
            line += " " + outcome
        }
        if let failure, depth == 0 || attributes.get(SpanAttributeName.outcome) != nil {
            line += ": " + failure
        }
        return [line] + children.sorted { $0.startTime < $1.startTime }.flatMap { $0.lines(depth: depth + 1) }
    }

    /// A finished dispatch as one line of JSON: `{"item":…,"kind":…,"plugin":…,"version":…,"payload":…,
    /// "start":…,"duration_ms":…,"outcome":…,"error":…,"parent":…}`; nil for other spans.
    func jsonLine() -> String? {
        let (attributes, endTime, failure) = lock.withLock { (spanAttributes, self.endTime, self.failure) }
        guard case .string(let item)? = attributes.get(SpanAttributeName.item), let endTime else { return nil }
        func text(_ key: String) -> JSONValue {
            if case .string(let value)? = attributes.get(key) { return .string(value) }
            return .null
        }
        var fields: [String: JSONValue] = [
            "item": .string(item), "kind": text(SpanAttributeName.kind), "plugin": text(SpanAttributeName.plugin),
            "payload": text(SpanAttributeName.payload), "outcome": text(SpanAttributeName.outcome),
            "start": .string(Date(timeIntervalSince1970: Double(startTime) / 1e9).formatted(Self.iso8601)),
            "duration_ms": .double(Double(endTime &- startTime) / 1e6),
            "error": failure.map(JSONValue.string) ?? .null,
            "parent": (enclosingDispatch()).map(JSONValue.string) ?? .null,
        ]
        if case .int64(let version)? = attributes.get(SpanAttributeName.pluginVersion) { fields["version"] = .integer(Int64(version)) }
        if case .int32(let version)? = attributes.get(SpanAttributeName.pluginVersion) { fields["version"] = .integer(Int64(version)) }
        return JSONValue.object(fields).jsonString()
    }

    /// The item of the nearest dispatch span above this one (the one that dispatched it), or the
    /// span this trace was started after.
    private func enclosingDispatch() -> String? {
        var span = parent
        while let current = span {
            if case .string(let item)? = current.attributes.get(SpanAttributeName.item) { return item }
            span = current.parent
        }
        return cause.map { $0.hasPrefix("dispatch ") ? String($0.dropFirst(9)) : $0 }
    }

    private static let iso8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `10:14:52.123`: the time of day (UTC) of a time in nanoseconds since 1970.
    static func clock(_ nanoseconds: UInt64) -> String {
        let milliseconds = nanoseconds / 1_000_000
        let (seconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let day = seconds % 86_400
        return String(format: "%02d:%02d:%02d.%03d", day / 3600, day / 60 % 60, day % 60, millis)
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
