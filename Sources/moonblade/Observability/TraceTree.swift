import Foundation

/// The spans of one printed trace: a top-level span and every span started under it while any of
/// them runs. The tree is printed once, when its last span ends, so a dispatch a rule set off (which
/// runs after the one that set it off) is printed finished inside it rather than "(still running)".
final class TraceTree: @unchecked Sendable {
    // @unchecked Sendable: `open` and `printed` are touched only inside `lock`.
    private let lock = NSLock()
    private var open = 0
    private var printed = false
    /// Prints the tree once its last span has ended.
    private let print: @Sendable () -> Void

    init(print: @escaping @Sendable () -> Void) {
        self.print = print
    }

    /// Counts a span starting in this tree; false when the tree is printed already (the span then
    /// starts a tree of its own).
    func join() -> Bool {
        lock.withLock {
            guard !printed else { return false }
            open += 1
            return true
        }
    }

    /// Counts a span of this tree ending, and prints the tree when it was the last one running.
    func leave() {
        let last = lock.withLock {
            open -= 1
            guard open == 0, !printed else { return false }
            printed = true
            return true
        }
        if last { print() }
    }
}
