import CLua
import LuaGuest

/// The per-VM bookkeeping that Swift code running inside Lua (on any coroutine) can reach.
///
/// A pointer to it sits in the main thread's `lua_getextraspace`, which Lua copies into every
/// coroutine it creates, so a Swift function handed only a `lua_State` finds its VM's runtime.
/// References hold it strongly and check `state` before touching Lua: the VM may be closed first.
final class LuaRuntime {
    /// The main thread, or nil once the VM is closed.
    var state: OpaquePointer?
    /// The guest limits (memory accounting, instruction budget, deadline) that the allocator and the
    /// count hook in LuaGuest (`Limits/limits.c`) read; owned here so it outlives `lua_close`.
    let limits: UnsafeMutablePointer<moonblade_limits>
    /// The last Swift error turned into a Lua error, so the host can hand it back when it surfaces.
    var pendingSwiftError: (message: String, error: any Error)?
    /// The wall-clock limit of an outermost guest call not given a deadline of its own, in seconds (a
    /// number: taking a `Duration` apart on every call cost more than the rest of arming the limits).
    var callTimeLimit: Double?
    // @exclusivity(unchecked) in this file, all together: 3.4 % of a Lua counter dispatch, 2.5 % of a journaled one
    // (Scripts/perf-gate, checked against unchecked).
    /// The ``LuaAwaitingCoroutine`` the host is resuming and the identity of its thread: what a Swift
    /// start function called from Lua finds (``LuaAwaitingCoroutine/running(on:)``); code on any other
    /// thread awaits nothing. Set only while that coroutine's own resume runs. The VM's thread alone
    /// touches it: no runtime exclusivity checks.
    @exclusivity(unchecked) var resumedCoroutine: (thread: UnsafeRawPointer, coroutine: AnyObject)?
    /// Registry slots ``LuaRegistrySlot``s gave back, handed out again first, and the lowest never used.
    /// Touched on the VM's thread alone, never across a call that touches them again: the runtime
    /// exclusivity checks would guard nothing (and cost more than the rest of taking a slot).
    @exclusivity(unchecked) private var freeRegistrySlots: [Int32] = []
    @exclusivity(unchecked) private var unusedRegistrySlot = Int32(LUA_RIDX_LAST) + 1

    init(configuration: LuaVM.Configuration) {
        callTimeLimit = configuration.callTimeLimit.map(LuaDeadline.seconds(of:))
        limits = .allocate(capacity: 1)
        moonblade_limits_init(
            limits, configuration.memoryLimit ?? 0, Int64(configuration.instructionBudget ?? 0),
            Int32(clamping: configuration.hookInterval ?? 0))
    }

    deinit {
        moonblade_drain_block_pool(limits)  // already empty once the VM closed; this covers a VM never closed
        limits.deallocate()
        keyStrings.deallocate()
        encoders.discard()
        decoders.discard()
    }

    /// The root coders of this VM's pushes and decodes, kept between them (the VM's thread alone).
    @exclusivity(unchecked) var encoders = LuaKeptCoder<LuaValueEncoder>()
    @exclusivity(unchecked) var decoders = LuaKeptCoder<LuaValueDecoder>()
    /// The field names' Lua strings this VM's coders keep (in its registry).
    let keyStrings = LuaKeyStrings()

    /// A registry slot no live ``LuaRegistrySlot`` holds.
    func takeRegistrySlot() -> Int32 {
        if let slot = freeRegistrySlots.popLast() { return slot }
        defer { unusedRegistrySlot += 1 }
        return unusedRegistrySlot
    }

    /// Takes back a slot its ``LuaRegistrySlot`` emptied.
    func releaseRegistrySlot(_ slot: Int32) {
        freeRegistrySlots.append(slot)
    }

    /// The runtime of the VM that `state` (any of its threads) belongs to.
    ///
    /// `Unmanaged` here and in `attach(to:)`: the extra space is raw C memory, where only a pointer can
    /// sit; unretained, since the ``LuaVM`` keeps its runtime alive longer than its state.
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
    ///
    /// The outermost call starts a fresh instruction budget; nested calls share it. With a
    /// `deadline`, guest code is also stopped once it passes; an outermost call without one gets the
    /// call time limit. `thread` is the thread the guest code starts on: a large allocation makes it
    /// check the limits at once (see Limits/limits.c).
    func withGuestLimits<R, E: Error>(
        on thread: OpaquePointer, deadline: LuaDeadline? = nil, _ body: () throws(E) -> R
    ) throws(E) -> R {
        let outermost = limits.pointee.guest_depth == 0
        let wasEnforcing = moonblade_enter_guest(limits)
        let outerThread = limits.pointee.running
        limits.pointee.running = thread
        defer {
            limits.pointee.running = outerThread
            moonblade_leave_guest(limits, wasEnforcing)
            moonblade_collect_after_memory_failure(thread)
        }
        guard let deadline = deadline ?? (outermost ? callTimeLimit.map(LuaDeadline.init(afterSeconds:)) : nil) else {
            return try body()
        }
        let outer = (limits.pointee.deadline, limits.pointee.time_limit)
        (limits.pointee.deadline, limits.pointee.time_limit) = (deadline.instant, deadline.seconds)
        defer { (limits.pointee.deadline, limits.pointee.time_limit) = outer }
        return try body()
    }

    /// The error of the limit that stopped the current guest call (or the last one, once it has
    /// returned), placed at the line it was stopped at; nil when no limit did.
    func limitError(traceback: String? = nil) -> LuaError? {
        guard let message = moonblade_violation_message(limits).map({ String(cString: $0) }) else { return nil }
        let kind: LuaError.Kind = limits.pointee.violation == moonblade_memory_limit_exceeded.rawValue ? .memory : .limit
        return LuaError(kind, message: message, location: LuaLocation(messagePrefix: message), traceback: traceback)
    }
}
