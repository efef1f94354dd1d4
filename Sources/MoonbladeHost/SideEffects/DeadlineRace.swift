import Moonblade
import MoonbladeLua

/// Awaits the Swift work a side effect asked for, but no longer than the side effect's deadline.
///
/// The work runs in its own task so that the wait can end the moment the deadline passes, even when
/// the work ignores cancellation: it is then cancelled and left to finish on its own, and
/// ``run(_:before:)`` throws ``Passed`` at once.
final class DeadlineRace: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only inside `lock`.

    /// The deadline passed before the work finished.
    struct Passed: Error {
        let deadline: LuaDeadline
    }

    private let lock = Lock()
    private var continuation: CheckedContinuation<PluginValue, any Error>?
    private var outcome: Result<PluginValue, any Error>?
    private var contestants: [Task<Void, Never>] = []
    private var isOver = false

    /// Runs `work`; returns or throws what it does, or throws ``Passed`` once `deadline` passes.
    static func run(_ work: @escaping PendingWork, before deadline: LuaDeadline?) async throws -> PluginValue
    {
        guard let deadline else { return try await work() }
        let race = DeadlineRace()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let worker = Task {
                    do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    guard (try? await Task.sleep(for: deadline.remaining)) != nil else { return }
                    race.finish(.failure(Passed(deadline: deadline)))
                }
                race.start(continuation, contestants: [worker, timer])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    private func start(
        _ continuation: CheckedContinuation<PluginValue, any Error>, contestants: [Task<Void, Never>]
    ) {
        let early = lock.withLock { () -> Result<PluginValue, any Error>? in
            guard let outcome else {
                self.continuation = continuation
                self.contestants = contestants
                return nil
            }
            isOver = true
            return outcome
        }
        guard let early else { return }
        contestants.forEach { $0.cancel() }
        continuation.resume(with: early)
    }

    /// Delivers the first outcome and cancels the other contestant; later outcomes are ignored.
    private func finish(_ result: Result<PluginValue, any Error>) {
        let winner = lock.withLock {
            () -> (CheckedContinuation<PluginValue, any Error>, [Task<Void, Never>])? in
            guard !isOver else { return nil }
            guard let continuation else {
                if outcome == nil { outcome = result }  // not started yet: `start` delivers it
                return nil
            }
            isOver = true
            return (continuation, contestants)
        }
        guard let (continuation, losers) = winner else { return }
        losers.forEach { $0.cancel() }
        continuation.resume(with: result)
    }
}
