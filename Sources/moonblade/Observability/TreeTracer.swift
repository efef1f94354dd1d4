import Foundation
import MoonbladeHost
import Tracing

/// `--trace`: a tracer that prints spans on standard error: each top-level span (a dispatch, a
/// reload) as a tree once it and everything started under it has ended, or (`--trace json`) each
/// finished dispatch as one line of JSON.
///
/// ```
/// trace: 10:14:52.120 dispatch todo.load {"key":"todos"} 2.41 ms ok
///   10:14:52.120 lua 0.05 ms
///   10:14:52.121 await ctx.deps.storage.read 1.90 ms
///   ...
/// ```
struct TreeTracer: InProcessTracer {
    let format: TraceFormat
    /// Where finished trees go; standard error unless a test looks.
    let write: @Sendable (String) -> Void

    init(format: TraceFormat = .tree, write: @escaping @Sendable (String) -> Void = Console.printError) {
        self.format = format
        self.write = write
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> TreeSpan {
        var context = context()
        let start = instant().nanosecondsSinceEpoch
        let span: TreeSpan
        // A span whose tree is printed already (a rule's dispatch that outlived it) starts its own.
        if let parent = context.treeSpan, parent.tree.join() {
            span = TreeSpan(operationName, parent: parent, tree: parent.tree, start: start, onEnd: onEnd)
            parent.adopt(span)
        } else {
            let cause = context.treeSpan?.operationName
            let root = RootBox()
            let tree = TraceTree { [write, format, root] in
                if format == .tree, let span = root.span { write(span.rendered()) }
            }
            _ = tree.join()
            span = TreeSpan(operationName, parent: nil, tree: tree, start: start, cause: cause, onEnd: onEnd)
            root.span = span
        }
        context.treeSpan = span
        span.context = context
        return span
    }

    /// `--trace json`: each dispatch as it ends.
    private var onEnd: @Sendable (TreeSpan) -> Void {
        { [format, write] span in
            if format == .json, let line = span.jsonLine() { write(line) }
        }
    }
}

/// The root span of a tree, set once right after the tree is made (its print closure needs it).
private final class RootBox: @unchecked Sendable {
    // @unchecked Sendable: `span` is set before the tree's first span can end, and only read after.
    var span: TreeSpan?
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
