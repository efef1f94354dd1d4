import Synchronization

/// A Swift service the plugin reaches as `ctx.deps.numbers.next()`: hands out note numbers in order.
public final class NoteNumbers: Sendable {
    private let last: Mutex<Int>

    /// Numbers that continue after `last`.
    public init(after last: Int = 0) {
        self.last = Mutex(last)
    }

    public func next() -> Int {
        last.withLock { last in
            last += 1
            return last
        }
    }
}
