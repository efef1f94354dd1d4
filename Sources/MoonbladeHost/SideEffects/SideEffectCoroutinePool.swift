import MoonbladeLua

/// The coroutines of side effect runs that returned, kept per plugin for that plugin's next runs: a
/// new Lua thread per run costs a handful of allocations and the collector's work to free them.
///
/// Reused only within a plugin: a plugin that kept an earlier run's thread (`coroutine.running()`)
/// can reach only its own later runs with it, as it can reach its own concurrent runs already; never
/// another plugin's. Lives in the VM (``LuaSide``), so it is touched with the VM held.
final class SideEffectCoroutinePool {
    /// How many idle coroutines a plugin keeps: enough for the runs of a burst to reuse each other's.
    static let limitPerPlugin = 8

    /// The idle coroutines of each plugin, in a class so that taking and keeping one mutates no
    /// dictionary value (a dictionary's `_modify` allocates its coroutine frame).
    private final class Idle {
        var coroutines: [SideEffectCoroutine] = []
    }

    private var idle: [String: Idle] = [:]
    /// The plugin last asked about and its entry in `idle`: runs come in bursts of one plugin, and
    /// comparing a short name costs a fraction of hashing it.
    private var last: (plugin: String, idle: Idle)?

    /// An idle coroutine of `run`'s plugin, ready for `run`, if there is one.
    func take(for run: SideEffectRun) -> SideEffectCoroutine? {
        guard let coroutine = idle(of: run.plugin, making: false)?.coroutines.popLast() else { return nil }
        coroutine.reuse(for: run)
        return coroutine
    }

    /// Keeps the coroutine of a run of `run` that has ended, if it can be reused and its plugin keeps
    /// fewer than ``limitPerPlugin``. (The run is the caller's: reading the coroutine's own context
    /// again would copy it through the generic coroutine's accessor.)
    func finish(_ coroutine: SideEffectCoroutine, of run: SideEffectRun) {
        guard coroutine.canBeReused, let kept = idle(of: run.plugin, making: true),
            kept.coroutines.count < Self.limitPerPlugin
        else { return }
        kept.coroutines.append(coroutine)
    }

    /// The idle coroutines of `plugin`, made first if `making` and it has none.
    private func idle(of plugin: String, making: Bool) -> Idle? {
        if let last, last.plugin == plugin { return last.idle }
        let found: Idle
        if let existing = idle[plugin] {
            found = existing
        } else {
            guard making else { return nil }
            found = Idle()
            idle[plugin] = found
        }
        last = (plugin, found)
        return found
    }
}
