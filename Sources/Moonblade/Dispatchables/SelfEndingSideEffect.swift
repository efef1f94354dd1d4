/// A side effect that can end its dispatch before its task ends: its handle waits on a
/// ``SideEffectEnding`` rather than on the task, and the side effect may end that first.
///
/// A time limit that abandons work ignoring cancellation needs it: without it, the handle could
/// only end when the task does, so the work would have to run in a task of its own, raced against
/// the limit. The store starts such a side effect with its ending (``Store`` sorts it by type when it
/// is dispatched); run through ``AnySideEffect/anySideEffect(_:)`` instead (under a side effect
/// interceptor, or by a caller of its own), it has none and must end on its task's terms.
package protocol SelfEndingSideEffect: AnySideEffect {
    /// Runs the side effect as ``AnySideEffect/anySideEffect(_:)`` does; `ending` may be ended first,
    /// which the handle then reports whatever this returns later.
    func anySideEffect(_ context: any AnySideEffectContext, ending: SideEffectEnding) async throws -> any Sendable
}
