import CLua

/// A Lua value kept alive by the host through the registry, released when this object goes away.
///
/// Use it to hold functions, tables and coroutines across calls. A reference belongs to its VM's
/// thread like the VM itself (it is not `Sendable`); if the VM is closed first, releasing it is a
/// no-op.
public final class LuaReference {
    private let runtime: LuaRuntime
    private let slot: Int32

    /// Pops the top value of `stack` into the registry.
    init(popping stack: LuaStack) {
        runtime = stack.runtime
        slot = luaL_ref(stack.state, moonblade_registryindex)
    }

    deinit {
        if let state = runtime.state {
            luaL_unref(state, moonblade_registryindex, slot)
        }
    }

    /// Pushes the referenced value onto `stack` (a stack of the same VM).
    public func push(onto stack: LuaStack) {
        lua_rawgeti(stack.state, moonblade_registryindex, lua_Integer(slot))
    }
}

extension LuaStack {
    /// Pops the top value and returns a reference that keeps it alive.
    public func popReference() -> LuaReference {
        LuaReference(popping: self)
    }
}
