/// One version of the resident state: a reference to its root in the VM, immutable, and the stamp the
/// host gave it.
///
/// Holding a version keeps its tables alive (and with them their entries in the decoding cache), so
/// an observer can be handed the old and the new version side by side: they share every subtree that
/// did not change. Like ``LuaReference``, it belongs to its VM's thread.
public final class LuaStateVersion: LuaReference {
    /// The stamp given by ``LuaResidentState/replace(with:version:encoder:)`` or
    /// ``LuaResidentState/commit(_:version:)`` (the host uses its store's state generation); 0 while
    /// the version is a pending state's. Set once, on the VM's thread: no runtime exclusivity checks.
    @exclusivity(unchecked) public internal(set) var version: UInt64

    /// Pops the root on top of `stack` into the registry.
    init(popping stack: LuaStack, version: UInt64) {
        self.version = version
        super.init(popping: stack)
    }
}
