/// One version of the resident state: its root in the VM, immutable, and the stamp the host gave it.
///
/// Holding a version keeps its tables alive (and with them their entries in the decoding cache), so
/// an observer can be handed the old and the new version side by side: they share every subtree that
/// did not change. Like ``LuaReference``, it belongs to its VM's thread.
public final class LuaStateVersion {
    /// The stamp given by ``LuaResidentState/replace(with:version:encoder:)`` or
    /// ``LuaResidentState/commit(_:version:)`` (the host uses its store's state generation).
    public let version: UInt64
    let root: LuaReference

    init(version: UInt64, root: LuaReference) {
        self.version = version
        self.root = root
    }
}
