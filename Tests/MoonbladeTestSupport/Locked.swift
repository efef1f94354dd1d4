import Foundation

/// A value behind an `NSLock`, for test helpers that share state between threads.
///
/// `Synchronization.Mutex` would do the same, but on Linux ThreadSanitizer cannot see it and reports
/// what it guards as data races.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is touched only while holding `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
