import CLua

/// The per-VM bookkeeping that Swift code running inside Lua (on any coroutine) can reach.
///
/// A pointer to it sits in the main thread's `lua_getextraspace`, which Lua copies into every
/// coroutine it creates, so a Swift function handed only a `lua_State` finds its VM's runtime.
/// References hold it strongly and check `state` before touching Lua: the VM may be closed first.
final class LuaRuntime {
    /// The main thread, or nil once the VM is closed.
    var state: OpaquePointer?
    /// The allocator's accounting and limit; owned here so it outlives `lua_close`.
    let allocator: UnsafeMutablePointer<moonblade_allocator>
    /// The last Swift error turned into a Lua error, so the host can hand it back when it surfaces.
    var pendingSwiftError: (message: String, error: any Error)?

    init(memoryLimit: Int?) {
        allocator = .allocate(capacity: 1)
        allocator.initialize(to: moonblade_allocator(used: 0, limit: memoryLimit ?? 0, enforcing: 0))
    }

    deinit {
        allocator.deallocate()
    }

    /// The runtime of the VM that `state` (any of its threads) belongs to.
    static func of(_ state: OpaquePointer) -> LuaRuntime {
        let slot = moonblade_getextraspace(state)!.load(as: UnsafeRawPointer.self)
        return Unmanaged<LuaRuntime>.fromOpaque(slot).takeUnretainedValue()
    }

    /// Records this runtime in `state`'s extra space; done once, on the main thread, before any coroutine.
    func attach(to state: OpaquePointer) {
        moonblade_getextraspace(state)!.storeBytes(
            of: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()), as: UnsafeRawPointer.self)
    }

    /// Runs `body` with the guest limits armed (rule 4: they bite only while plugin code runs).
    func withGuestLimits<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let wasEnforcing = allocator.pointee.enforcing
        allocator.pointee.enforcing = 1
        defer { allocator.pointee.enforcing = wasEnforcing }
        return try body()
    }
}
