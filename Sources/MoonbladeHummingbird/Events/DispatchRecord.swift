import Synchronization

/// One dispatch the event stream reports: its id, who dispatched it, and its span tree once the
/// host's ``EventTracer`` has started it.
final class DispatchRecord: Sendable {
    /// Who dispatched an item.
    enum Origin: String, Sendable {
        /// Swift code: nothing the stream saw.
        case direct
        /// A request to the dispatch route.
        case http
        /// A line of `moonblade run --watch --devtools`'s standard input.
        case commandLine = "command_line"
        /// An observer rule, reacting to its parent.
        case rule
        /// A side effect, its parent, through `ctx.dispatch`.
        case sideEffect = "side_effect"
        /// Something else running inside its parent (a Swift interceptor, a listener).
        case reaction
    }

    let id: Int
    /// The id of the dispatch that set this one off.
    let parentID: Int?
    let origin: Origin
    /// Whether the item is a side effect (what it dispatches has it as parent).
    let isSideEffect: Bool

    private struct Progress {
        var root: EventSpan?
        var rootEnded = false
        var published = false
    }

    private let progress = Mutex(Progress())
    /// Sends the span tree on its own, when it ends after the dispatch was reported.
    private let publishSpans: @Sendable (DispatchRecord, EventSpan) -> Void

    init(
        id: Int, parentID: Int?, origin: Origin, isSideEffect: Bool,
        publishSpans: @escaping @Sendable (DispatchRecord, EventSpan) -> Void
    ) {
        (self.id, self.parentID, self.origin, self.isSideEffect) = (id, parentID, origin, isSideEffect)
        self.publishSpans = publishSpans
    }

    /// The dispatch span, once started.
    var root: EventSpan? { progress.withLock { $0.root } }

    /// This dispatch's span, made by `make`, unless it has one already (then nil: the span is a
    /// nested dispatch's that no interceptor reported).
    func claim(_ make: () -> EventSpan) -> EventSpan? {
        progress.withLock { progress in
            guard progress.root == nil else { return nil }
            let span = make()
            progress.root = span
            return span
        }
    }

    /// Marks the dispatch reported: its span tree, when it has ended, goes with the report (else it
    /// is published on its own when it ends).
    func reported() -> EventSpan? {
        progress.withLock { progress in
            progress.published = true
            return progress.rootEnded ? progress.root : nil
        }
    }

    /// Publishes the tree again, if it went out already, now that a rule's span in it has ended.
    func ruleEnded() {
        let root: EventSpan? = progress.withLock { $0.published && $0.rootEnded ? $0.root : nil }
        root.map { publishSpans(self, $0) }
    }

    /// Marks the dispatch span ended, and publishes the tree if the dispatch was reported already.
    func rootEnded() {
        let root: EventSpan? = progress.withLock { progress in
            progress.rootEnded = true
            return progress.published ? progress.root : nil
        }
        root.map { publishSpans(self, $0) }
    }
}
