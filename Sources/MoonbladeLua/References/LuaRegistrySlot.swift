import CLua

/// A registry slot holding one Lua value alive, released when the slot goes away.
///
/// Non-copyable so that exactly one owner releases it: ``LuaReference`` for any value, and
/// ``LuaStateVersion`` for a state's root (one object per version, not a version and a reference).
/// If the VM is closed first, releasing it is a no-op.
///
/// Slots are the registry's integer keys past `LUA_RIDX_LAST`, handed out by the VM's ``LuaRuntime``
/// from a free list it keeps in Swift: `luaL_ref` keeps that list in the registry itself, four table
/// accesses per reference and three per release, and a dispatch makes and drops one. Nothing else
/// may use `luaL_ref` on the registry (both would hand out the same keys).
///
/// Public to the resident state's module only (`@_spi(ResidentState) import`), with ``push(onto:)``
/// inlinable: a `package` declaration's body is not inlined into another module.
@_spi(ResidentState) public struct LuaRegistrySlot: ~Copyable {
    private let runtime: LuaRuntime
    @usableFromInline let slot: Int32

    /// Pops the top value of `stack` into the registry.
    public init(popping stack: LuaStack) {
        runtime = stack.runtime
        slot = runtime.takeRegistrySlot()
        lua_rawseti(stack.state, moonblade_registryindex, lua_Integer(slot))
    }

    /// Pops the top value of `stack` into this slot, in place of the value it held.
    public func replace(popping stack: LuaStack) {
        lua_rawseti(stack.state, moonblade_registryindex, lua_Integer(slot))
    }

    /// Lets the value go, keeping the slot for a later ``replace(popping:)``.
    public func clear() {
        guard let state = runtime.state else { return }
        lua_pushnil(state)
        lua_rawseti(state, moonblade_registryindex, lua_Integer(slot))
    }

    deinit {
        guard let state = runtime.state else { return }
        lua_pushnil(state)
        lua_rawseti(state, moonblade_registryindex, lua_Integer(slot))  // a slot of the array part: no allocation
        runtime.releaseRegistrySlot(slot)
    }

    /// Pushes the value onto `stack` (a stack of the same VM).
    @inlinable
    public func push(onto stack: LuaStack) {
        lua_rawgeti(stack.state, moonblade_registryindex, lua_Integer(slot))
    }
}
