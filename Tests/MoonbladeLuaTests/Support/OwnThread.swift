import Foundation

/// Runs `body` on a thread of its own and returns what it returns.
///
/// For long synchronous work in tests: on the cooperative pool (two threads on a two-core machine) it
/// would hold up every other test's awaits for as long as it runs.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
