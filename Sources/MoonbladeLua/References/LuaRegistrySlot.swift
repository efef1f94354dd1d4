import CLua

/// A registry slot holding one Lua value alive, released when the slot goes away.
///
/// Non-copyable so that exactly one owner releases it: ``LuaReference`` for any value, and
/// ``LuaStateVersion`` for a state's root (one object per version, not a version and a reference).
/// If the VM is closed first, releasing it is a no-op.
struct LuaRegistrySlot: ~Copyable {
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

    /// Pushes the value onto `stack` (a stack of the same VM).
    func push(onto stack: LuaStack) {
        lua_rawgeti(stack.state, moonblade_registryindex, lua_Integer(slot))
    }
}
