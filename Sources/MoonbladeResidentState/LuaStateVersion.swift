@_spi(ResidentState) import MoonbladeLua

/// One version of the resident state: its root in the VM, immutable, and the stamp the host gave it.
///
/// Holding a version keeps its tables alive (and with them their entries in the decoding cache), so
/// an observer can be handed the old and the new version side by side: they share every subtree that
/// did not change. Like ``LuaReference``, it belongs to its VM's thread.
public final class LuaStateVersion {
    /// The stamp given by ``LuaResidentState/replace(with:version:encoder:)`` or
    /// ``LuaResidentState/commit(_:version:)`` (the host uses its store's state version).
    public var version: UInt64 {
        guard let stamp else { preconditionFailure("a pending state has no version until it is committed") }
        return stamp
    }

    /// Nil while this is the root of a ``LuaPendingState``: the version it becomes when committed,
    /// so a dispatch makes one object for its new version.
    private(set) var stamp: UInt64?
    private let root: LuaRegistrySlot
    /// The type the root was pushed from or decoded as: a table of that type's keys, which a draft
    /// made of it need not check again where it did not change them.
    var rootType: ObjectIdentifier?

    /// Pops the top value of `stack`, the root, into the registry.
    init(popping stack: LuaStack, stamp: UInt64?) {
        root = LuaRegistrySlot(popping: stack)
        self.stamp = stamp
    }

    /// Makes this retired version, which nothing else holds, the pending root popped from `stack`.
    func reuse(popping stack: LuaStack) {
        root.replace(popping: stack)
        stamp = nil
        rootType = nil
    }

    /// Lets the root go while the object waits to be reused.
    func retire() {
        root.clear()
    }

    /// Pushes the root onto `stack`: for the machinery and the decoder, never for a plugin to write.
    func pushRoot(onto stack: LuaStack) {
        root.push(onto: stack)
    }

    /// Stamps a pending state's root as a version; false when it was stamped already.
    func stampOnce(_ version: UInt64) -> Bool {
        guard stamp == nil else { return false }
        stamp = version
        return true
    }
}
