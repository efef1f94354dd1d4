import MoonbladeLua
import MoonbladeResidentState

/// Lua updaters on ``ItemsState`` through the resident-state engine alone (``LuaResidentState``, no
/// store or plugin host): draft, finish, decode what changed, commit. Beside it the old way on the
/// same VM: encode the whole state, run the updater on the plain table, decode the whole result.
public final class ResidentStateWorkload {
    public enum Change: CaseIterable, Sendable {
        /// `state.counter = state.counter + 1`
        case topLevelField
        /// `state.items[middle].done = not state.items[middle].done`
        case oneItem
        /// Sums every item's `score` into `state.counter`: reads every item, writes one field
        case readEveryItem
    }

    public let vm: LuaVM
    public let resident: LuaResidentState
    public let count: Int
    private let updaters: [Change: LuaReference]
    private var version: UInt64 = 0
    private var state: ItemsState

    public init(count: Int) throws {
        self.count = count
        vm = try LuaVM()
        resident = try LuaResidentState(vm: vm)
        state = ItemsState(count: count)
        try resident.replace(with: state, version: 0)
        let middle = count / 2 + 1
        updaters = [
            .topLevelField: try vm.load("local state = ...; state.counter = state.counter + 1", chunkName: "counter.lua"),
            .oneItem: try vm.load(
                "local state = ...; local item = state.items[\(middle)]; item.done = not item.done", chunkName: "item.lua"),
            .readEveryItem: try vm.load(
                "local state = ...; local total = 0; for _, item in ipairs(state.items) do total = total + item.id end; state.counter = total",
                chunkName: "sum.lua"),
        ]
        // The first decode after a full push reads everything once; later ones reuse it.
        state = try resident.decode(ItemsState.self, of: resident.current!)
    }

    /// One Lua updater on a draft, its result decoded and committed.
    public func draft(_ change: Change) throws {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        let pending = try resident.apply(updaters[change]!, on: stack) { _ in 0 }
        state = try resident.decode(ItemsState.self, of: pending)
        version += 1
        resident.commit(pending, version: version)
    }

    /// The same updater the old way: the whole state encoded into fresh tables and decoded back.
    public func fullRoundTrip(_ change: Change) throws {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        updaters[change]!.push(onto: stack)
        try LuaEncoder().push(state, onto: stack)
        stack.pushCopy(of: -1)
        stack.insert(at: base + 1)
        try stack.call(arguments: 1, results: 0)
        state = try LuaDecoder().decode(ItemsState.self, from: stack, at: base + 1)
    }

    /// Bytes the VM holds for the resident state after `commits` one-item changes, against the bytes
    /// of the same state freshly encoded, each after a full collection.
    public static func memory(count: Int, commits: Int) throws -> (resident: Int, fresh: Int) {
        let workload = try ResidentStateWorkload(count: count)
        for _ in 0..<commits { try workload.draft(.oneItem) }
        try workload.vm.run("collectgarbage(); collectgarbage()")
        let withResident = workload.vm.memoryInUse
        try LuaEncoder().push(workload.state, onto: workload.vm.stack)
        let fresh = workload.vm.stack.popReference()
        try workload.vm.run("collectgarbage(); collectgarbage()")
        let withBoth = workload.vm.memoryInUse
        withExtendedLifetime(fresh) {}
        let emptyVM = try LuaVM()
        _ = try LuaResidentState(vm: emptyVM)
        try emptyVM.run("collectgarbage(); collectgarbage()")
        return (withResident - emptyVM.memoryInUse, withBoth - withResident)
    }
}
