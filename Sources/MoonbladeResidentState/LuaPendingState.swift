import MoonbladeLua

/// A finished draft: the next version of the state, not yet current.
///
/// Decode it with ``LuaResidentState``'s `decode(_:of:decoder:)` and, when that succeeds,
/// ``LuaResidentState/commit(_:version:)`` it; dropping it instead leaves the resident state exactly as
/// it was, since nothing of the current version was written to make it.
public struct LuaPendingState {
    /// The new root, as the version it becomes when committed (not stamped until then): tables on
    /// the paths the updater wrote are new, every other table is the very table of the version the
    /// draft was made from.
    let next: LuaStateVersion
    /// The `apply` that made it, whose change records (each new table that came from an older one,
    /// mapped to `{ older table, changedKey1, changedKey2, … }`) the machinery keeps until the first
    /// decode of it or the next `apply`; nil when no table came from an older one. Decoded after a
    /// later `apply` (or a second time), the state is read in full instead of patched.
    let changeSession: Int64?
    /// The ``LuaStateVersion/rootType`` of the version the draft was made from.
    let baseRootType: ObjectIdentifier?
    /// Whether the root is the very table the draft was made from: the updater changed nothing, so
    /// the state it leaves is the one it was given (no need to decode it).
    public let isUnchanged: Bool
}
