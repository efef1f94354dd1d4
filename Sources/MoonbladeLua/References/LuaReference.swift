import CLua

/// A Lua value kept alive by the host through the registry, released when this object goes away.
///
/// Use it to hold functions, tables and coroutines across calls. A reference belongs to its VM's
/// thread like the VM itself (it is not `Sendable`); if the VM is closed first, releasing it is a
/// no-op.
public final class LuaReference {
    private let slot: LuaRegistrySlot

    /// Pops the top value of `stack` into the registry.
    init(popping stack: LuaStack) {
        slot = LuaRegistrySlot(popping: stack)
    }

    /// Pushes the referenced value onto `stack` (a stack of the same VM).
    public func push(onto stack: LuaStack) {
        slot.push(onto: stack)
    }
}

extension LuaStack {
    /// Pops the top value and returns a reference that keeps it alive.
    public func popReference() -> LuaReference {
        LuaReference(popping: self)
    }
}
