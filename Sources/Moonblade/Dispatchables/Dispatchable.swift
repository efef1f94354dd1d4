/// Something that can be dispatched to a ``Store``: a state updater or a side effect.
///
/// Do not conform to `Dispatchable` directly; conform to ``StateUpdater``, ``SideEffect`` or
/// ``ReturningSideEffect`` (or their type-erased parents). Items cross threads, so they are `Sendable`.
public protocol Dispatchable: Sendable {}
