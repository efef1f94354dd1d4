import Foundation
import Tracing

/// `--trace`: a tracer that prints each finished top-level span (a dispatch, a reload) as a tree
/// with durations on standard error.
///
/// ```
/// trace: dispatch todo.load 2.41 ms ok
///   lua 0.05 ms
///   await ctx.deps.storage.read 1.90 ms
///   ...
/// ```
struct TreeTracer: Tracer {
    /// Where finished trees go; standard error unless a test looks.
    let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void = Console.printError) {
        self.write = write
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> TreeSpan {
        var context = context()
        let parent = context.treeSpan
        let span = TreeSpan(operationName, parent: parent, start: instant().nanosecondsSinceEpoch) { [write] root in
            write(root.rendered())
        }
        parent?.adopt(span)
        context.treeSpan = span
        span.context = context
        return span
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {}

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}
}

extension InstrumentationContext {
    /// The span of the tree tracer this context is in.
    fileprivate var treeSpan: TreeSpan? {
        get { self[TreeSpanKey.self] }
        set { self[TreeSpanKey.self] = newValue }
    }
}

private enum TreeSpanKey: InstrumentationContextKey {
    typealias Value = TreeSpan
}
