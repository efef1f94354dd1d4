import Dispatch
import Moonblade
import MoonbladeLua
import Synchronization

/// A side effect run that awaits Swift work: its coroutine, carried across the awaits, and the run's
/// time limit from its first await on: one entry of the shared ``DeadlineTimer`` for the whole run,
/// whatever the number of awaits.
///
/// The run goes on in the side effect's own task when the store started it with a
/// ``SideEffectEnding`` (``endsOnDeadline(_:_:)``): the deadline then ends the dispatch itself. Else
/// ``outcome(of:)`` waits for the run, going on in a task of its own (started at once, on the calling
/// thread, until it first suspends) and, unless the run has ended by then, waits for it or for the
/// deadline, whichever comes first. Inside, the run awaits its Swift work directly, between
/// ``beginAwait()`` and ``endAwait()``. When the deadline passes during an await, the dispatch ends at
/// once, even if the work ignores cancellation: the run is *abandoned* (its work is cancelled and left
/// to finish on its own, and the run then stops without touching Lua again) and the dispatch ends with
/// the limit error (the waiter gets ``Passed``). While Lua runs, the deadline is the count hook's to
/// enforce.
///
/// The coroutine is only ever touched inside ``PluginRuntime/withLua(_:)`` (rule 3), which is what
/// makes handing it between threads safe; whichever task ends the run drops it there (its Lua
/// references must not be released while another thread runs Lua). The race is one atomic word
/// rather than a lock: an await that answers at once costs two compare-and-swaps, and a run no lock
/// to make.
final class AwaitingSideEffect: DeadlineTimer.Client, @unchecked Sendable {
    // @unchecked Sendable: `coroutine` and `pastLimitError` are only touched inside
    // `PluginRuntime.withLua`; `outcome`, `waiter` and `worker` are written once, before the bit of
    // `state` that publishes them; `ending` and `runner` before the timer's lock publishes them.

    /// The deadline passed while the run awaited Swift work: the run is abandoned.
    struct Passed: Error {}

    private(set) var coroutine: SideEffectCoroutine?
    /// The run's item and plugin, readable without the VM.
    let context: SideEffectRun
    /// What it awaits first.
    let firstWork: PendingWork
    /// When its time limit passes; nil: the run has none, and goes on in the side effect's own task.
    let deadline: LuaDeadline?

    /// Where the run is, as bits: an await in progress (`awaiting`; the deadline abandons the run then),
    /// `abandoned` (final: the waiter has been told, the run must stop), `passed` (the deadline is
    /// known to have passed: what the clock would say, so that ``beginAwait()`` reads no clock),
    /// `done` (`outcome` is written), `waiting` (`waiter` is written) and `finished` (the timer's
    /// entry may go).
    private let state = Atomic<Int>(0)
    private static let awaiting = 1, abandoned = 2, passed = 4, done = 8, waiting = 16, finished = 32
    /// How the run ended; published by `done`.
    private var outcome: Swift.Result<any Sendable, any Error>?
    /// The task waiting for the run; published by `waiting`, resumed by whoever ends the race.
    private var waiter: UnsafeContinuation<any Sendable, any Error>?
    /// The task going on with the run, once the waiter waits (read by the timer, scheduled after).
    private var worker: Task<Void, Never>?
    /// The dispatch's ending, when the run goes on in the side effect's own task, and the runtime that
    /// says the limit error it ends with.
    private var ending: SideEffectEnding?
    private var runner: (any SideEffectRunner)?
    /// The limit error, once said: the timer's ending and the run's own may both ask.
    var pastLimitError: PluginError?

    init(_ coroutine: SideEffectCoroutine, awaiting work: @escaping PendingWork, deadline: LuaDeadline?) {
        self.coroutine = coroutine
        context = coroutine.context
        firstWork = work
        self.deadline = deadline
    }

    /// Drops the run's reference to its coroutine, once its last step has run or the run is stopped
    /// between steps; call inside the VM lock (the coroutine's Lua references may go with it).
    func release() {
        coroutine = nil
    }

    /// Has the deadline end `ending` with `runner`'s limit error (and cancel the side effect's task) if
    /// it passes while the run, going on in the side effect's own task, awaits Swift work. An await
    /// that answers at once costs no task then, where the timer is told of the run before its first
    /// await, suspending or not; call ``finish()`` once the run has ended.
    func endsOnDeadline(_ ending: SideEffectEnding, _ runner: any SideEffectRunner) {
        (self.ending, self.runner) = (ending, runner)
        DeadlineTimer.shared.schedule(deadline!, self)
    }

    /// Lets the timer drop the run's entry: the run has ended, or its waiter no longer waits.
    func finish() {
        state.bitwiseOr(Self.finished, ordering: .relaxed)
    }

    var hasFinished: Bool {
        state.load(ordering: .relaxed) & Self.finished != 0
    }

    /// Waits for the run going on in `worker`, a task the caller started on this thread with
    /// `Task.immediate` that reports how the run ended with ``tell(_:)``: returns what the run returned,
    /// or throws what it threw, or ``Passed`` once the deadline passes while the run awaits Swift work.
    /// Cancelling the calling task cancels `worker`, and so the work it awaits.
    ///
    /// When the work the run awaits does not suspend (a dependency that answers at once), the run has
    /// ended by the time `worker` is handed here, and the caller neither waits nor schedules the
    /// deadline (nothing could have held the run up that the deadline could end). The caller makes the
    /// task itself, so that its closure calls the run directly: a closure passed in here to be called
    /// from the task's would be one more allocation and two more `async` frames per run.
    func outcome(of worker: Task<Void, Never>) async throws -> any Sendable {
        let now = state.load(ordering: .acquiring)
        if now & Self.abandoned != 0 { throw Passed() }  // work that held its thread past the deadline
        if now & Self.done != 0 { return try outcome!.get() }
        self.worker = worker
        DeadlineTimer.shared.schedule(deadline!, self)
        defer { finish() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (waiter: UnsafeContinuation<any Sendable, any Error>) in
                self.waiter = waiter
                var old = state.load(ordering: .acquiring)  // `done` seen here publishes `outcome`
                while true {
                    if old & Self.abandoned != 0 { return waiter.resume(throwing: Passed()) }
                    if old & Self.done != 0 { return waiter.resume(with: outcome!) }
                    let (exchanged, original) = state.compareExchange(
                        expected: old, desired: old | Self.waiting, ordering: .acquiringAndReleasing)
                    if exchanged { return }
                    old = original
                }
            }
        } onCancel: {
            worker.cancel()
        }
    }

    /// Marks the run as awaiting Swift work; false when the deadline has passed already (the run must
    /// then fail with a limit error).
    func beginAwait() -> Bool {
        var old = state.load(ordering: .relaxed)
        while true {
            if old & Self.passed != 0 { return false }
            let (exchanged, original) = state.compareExchange(
                expected: old, desired: old | Self.awaiting, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            old = original
        }
    }

    /// Marks the run as running again after its await; false when it was abandoned meanwhile (the
    /// run must then stop without touching Lua: its coroutine is no longer its own). An await whose
    /// work held its thread past the deadline without suspending abandons the run here: no timer was
    /// scheduled to do it (``outcome(of:)`` schedules one only for a run that suspends).
    func endAwait() -> Bool {
        // The bits before the clock: a run the timer has marked `passed` (abandoning sets it too) is
        // past its limit, and pays no clock read. A relaxed load is enough: a stale value only makes
        // the compare-and-swap below fail and hand back the current bits (with the acquire-release
        // ordering that publishes them), and `abandoned`, once seen, is final and asks nothing more of
        // memory, as before. The clock, when read, is read once: a swap lost to the timer then finds
        // the timer's bits on the next turn.
        var old = state.load(ordering: .relaxed)
        let hasPassed = old & Self.passed != 0 || deadline!.hasPassed
        while true {
            if old & Self.abandoned != 0 { return false }
            if !hasPassed, old & Self.passed == 0 {
                let (exchanged, original) = state.compareExchange(
                    expected: old, desired: old & ~Self.awaiting, ordering: .acquiringAndReleasing)
                if exchanged { return true }
                old = original
            } else if abandon(from: &old) {
                return false
            }
        }
    }

    /// The timer's call: abandons the run if it awaits Swift work, else leaves it to the count hook
    /// (and to ``beginAwait()``).
    func deadlinePassed() {
        var old = state.load(ordering: .relaxed)
        while old & Self.abandoned == 0 {
            if old & Self.awaiting != 0 {
                if abandon(from: &old) {
                    if let ending, let runner {
                        // Off the timer's thread: saying the error waits for the VM. Ended before the
                        // task is cancelled, so that the error the cancelled run ends with comes second.
                        DispatchQueue.global().async {
                            ending.end(throwing: runner.endPastTimeLimit(self))
                            ending.cancel()
                        }
                        return
                    }
                    // Cancelled off the timer's thread: `cancel()` runs the work's cancellation handlers
                    // on the calling thread, and one that blocks (waiting for a lock its work holds over
                    // blocking I/O, say) would hold up every other run's deadline behind it.
                    if let worker { DispatchQueue.global().async { worker.cancel() } }
                    return
                }
            } else {
                let (exchanged, original) = state.compareExchange(
                    expected: old, desired: old | Self.passed, ordering: .acquiringAndReleasing)
                if exchanged { return }
                old = original
            }
        }
    }

    /// Marks the awaiting run abandoned, if `old` is still its state, and tells the waiter if one
    /// waits already (one that comes to wait later finds the run abandoned); else updates `old`.
    private func abandon(from old: inout Int) -> Bool {
        let (exchanged, original) = state.compareExchange(
            expected: old, desired: (old & ~Self.awaiting) | Self.abandoned | Self.passed, ordering: .acquiringAndReleasing)
        guard exchanged else {
            old = original
            return false
        }
        if old & Self.waiting != 0 { waiter!.resume(throwing: Passed()) }
        return true
    }

    /// Tells the waiter how the run ended, unless the deadline told it first; keeps the outcome for
    /// ``outcome(of:)`` when nobody waits yet. Called once, by the run's task, as it ends.
    func tell(_ outcome: Swift.Result<any Sendable, any Error>) {
        self.outcome = outcome
        let old = state.bitwiseOr(Self.done, ordering: .acquiringAndReleasing).oldValue
        if old & Self.waiting != 0, old & Self.abandoned == 0 { waiter!.resume(with: outcome) }
    }
}

/// The runtime of an ``AwaitingSideEffect``, as its deadline ends it.
protocol SideEffectRunner: AnyObject, Sendable {
    /// Ends the run whose time limit passed while it awaited Swift work (its coroutine is the caller's
    /// to end) and returns the error it fails with; the same error again when asked again.
    func endPastTimeLimit(_ run: AwaitingSideEffect) -> PluginError
}
