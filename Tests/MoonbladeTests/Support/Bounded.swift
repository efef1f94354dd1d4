import MoonbladeTestSupport
import Testing

/// What ``bounded(_:sourceLocation:_:)`` throws when the work it awaits has not finished in time.
struct TimedOut: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "timed out after \(limit)" }
}

/// Awaits `body` for at most `timeout` (stretched under sanitizers), so a dispatch that never completes
/// fails its test instead of hanging the run: on time-out it records an issue at the caller and throws
/// ``TimedOut`` (the work is abandoned, still suspended).
///
/// The default catches a dispatch that never completes, and only that: work that takes milliseconds
/// alone has waited tens of seconds for a thread of a loaded pool (``Duration/poolStarvationAllowance``).
///
/// A task group cannot bound it: the group waits for its children, and a continuation that is never
/// resumed does not end on cancellation.
func bounded<T: Sendable>(
    _ timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<Result<T, any Error>>()
    Task {
        do {
            outcome.finish(.success(try await body()))
        } catch {
            outcome.finish(.failure(error))
        }
    }
    let limit = timeout.allowingForSanitizers
    let timer = Task {
        try? await Task.sleep(for: limit)
        outcome.finish(nil)
    }
    defer { timer.cancel() }
    guard let result = await outcome.value else {
        Issue.record("timed out after \(limit)", sourceLocation: sourceLocation)
        throw TimedOut(limit: limit)
    }
    return try result.get()
}
