/// A finished draft: the next version of the state, not yet current.
///
/// Decode it with ``LuaResidentState``'s `decode(_:of:decoder:)` and, when that succeeds,
/// ``LuaResidentState/commit(_:version:)`` it; dropping it instead leaves the resident state exactly as
/// it was, since nothing of the current version was written to make it.
public final class LuaPendingState {
    /// The new root: tables on the paths the updater wrote are new, every other table is the very
    /// table of the version the draft was made from.
    let root: LuaReference
    /// A Lua table mapping each new table that came from an older one to
    /// `{ older table, changedKey1, changedKey2, … }`; tables the plugin built have no entry.
    /// A reference to nil when no table came from an older one. The machinery empties it for its
    /// next `apply`: decode the pending state before applying another updater.
    let changes: LuaReference
    /// Whether the root is the very table the draft was made from: the updater changed nothing, so
    /// the state it leaves is the one it was given (no need to decode it).
    public let isUnchanged: Bool

    init(root: LuaReference, changes: LuaReference, isUnchanged: Bool) {
        self.root = root
        self.changes = changes
        self.isUnchanged = isUnchanged
    }
}
