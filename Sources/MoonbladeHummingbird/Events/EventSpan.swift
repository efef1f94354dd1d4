import MoonbladeHost
import Synchronization
import Tracing

/// A span of ``EventTracer``: a step of a dispatch (the Lua call, the state mapping, an await, a
/// rule, a nested dispatch) with its times and children, read into JSON on a client's task.
final class EventSpan: Span {
    private struct Contents {
        var name: String
        var attributes = SpanAttributes()
        var failure: String?
        var children: [EventSpan] = []
        var end: UInt64?
    }

    private let contents: Mutex<Contents>
    let start: UInt64
    /// The dispatch this span is part of; nil for one outside any (a reload's).
    let owner: DispatchRecord?
    /// Whether this is `owner`'s own dispatch span.
    let isDispatch: Bool
    /// Whether this is a rule's span or under one, within its dispatch: what it dispatches, the rule did.
    let isInRule: Bool
    /// Whether this is a rule's own span.
    private let isRule: Bool
    /// Set by the tracer before the span is handed out, never after.
    nonisolated(unsafe) var context = InstrumentationContext.topLevel

    init(_ name: String, start: UInt64, owner: DispatchRecord?, isDispatch: Bool, isInRule: Bool = false) {
        contents = Mutex(Contents(name: name))
        self.isInRule = isInRule
        isRule = name.hasPrefix("rule ")
        self.start = start
        self.owner = owner
        self.isDispatch = isDispatch
    }

    var operationName: String {
        get { contents.withLock { $0.name } }
        set { contents.withLock { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { contents.withLock { $0.attributes } }
        set { contents.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { contents.withLock { $0.end == nil } }

    func setStatus(_ status: SpanStatus) {
        guard status.code == .error else { return }
        contents.withLock { $0.failure = $0.failure ?? status.message ?? "error" }
    }

    func addEvent(_ event: SpanEvent) {}

    func addLink(_ link: SpanLink) {}

    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        contents.withLock { $0.failure = "\(error)" }
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let time = instant().nanosecondsSinceEpoch
        let first = contents.withLock { contents in
            defer { contents.end = contents.end ?? time }
            return contents.end == nil
        }
        guard first else { return }
        if isDispatch {
            owner?.rootEnded()
        } else if isRule {
            // A rule's span ends once what it dispatched has: after its dispatch was reported.
            owner?.ruleEnded()
        }
    }

    /// Makes `child` one of this span's children.
    func adopt(_ child: EventSpan) {
        contents.withLock { $0.children.append(child) }
    }

    /// `{"name":…,"startNanoseconds":…,"durationNanoseconds":…,"error":…,"dispatch":…,"children":[…]}`:
    /// the start counted from `origin` (the tree's top span), the duration null while running, `dispatch`
    /// the id of the nested dispatch this span is the span of.
    func json(from origin: UInt64? = nil) -> JSONValue {
        let (name, failure, children, end) = contents.withLock { ($0.name, $0.failure, $0.children, $0.end) }
        let origin = origin ?? start
        var members: [String: JSONValue] = [
            "name": .string(name),
            "startNanoseconds": .integer(Int64(start &- origin)),
            "durationNanoseconds": end.map { .integer(Int64($0 &- start)) } ?? .null,
            "children": .array(children.sorted { $0.start < $1.start }.map { $0.json(from: origin) }),
        ]
        if let failure { members["error"] = .string(failure) }
        if isDispatch, let owner { members["dispatch"] = .integer(Int64(owner.id)) }
        return .object(members)
    }
}
