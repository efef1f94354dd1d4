import CLua
import MoonbladeLua
import Synchronization

/// Counts the emergency collections a VM makes: the allocations its allocator refuses, since Lua
/// collects all garbage before it tries a refused allocation once more.
///
/// It wraps the VM's allocator, calling it with the same user data (the VM's limits, which the guest
/// library finds there). A C allocator has no other context, so the count is process-wide: count on one
/// VM at a time. Every VM has the same allocator, so the one wrapped is read once, from a VM of its own.
enum EmergencyCollections {
    private static let counted = Atomic<Int>(0)
    private static let allocator: lua_Alloc = {
        let vm = try! LuaVM()
        return lua_getallocf(vm.stack.state, nil)!
    }()
    private static let counting: lua_Alloc = { userData, block, oldSize, newSize in
        let result = EmergencyCollections.allocator(userData, block, oldSize, newSize)
        if result == nil && newSize > 0 { EmergencyCollections.counted.add(1, ordering: .relaxed) }
        return result
    }

    /// Runs `body` counting the emergency collections of `vm`, and returns what it returns with that count.
    static func count<R>(on vm: LuaVM, _ body: () throws -> R) rethrows -> (result: R, collections: Int) {
        let state = vm.stack.state
        var userData: UnsafeMutableRawPointer?
        let own = lua_getallocf(state, &userData)
        lua_setallocf(state, counting, userData)
        defer { lua_setallocf(state, own, userData) }
        let before = counted.load(ordering: .relaxed)
        let result = try body()
        return (result, counted.load(ordering: .relaxed) - before)
    }
}
