import LuaGuest

extension LuaVM {
    /// Limits that stand in for the VM's own for a stretch of guest calls (a plugin's own limits, say).
    /// A nil field keeps the VM's setting.
    public struct Limits: Sendable, Hashable {
        /// The most instructions one outermost guest call may run.
        public var instructionBudget: Int?
        /// The most memory, in bytes, the VM may hold while guest code runs.
        public var memoryLimit: Int?
        /// The wall-clock limit of an outermost guest call that is not given a deadline of its own.
        public var callTimeLimit: Duration?

        /// Limits in place of the VM's own; each one left nil keeps the VM's setting.
        public init(instructionBudget: Int? = nil, memoryLimit: Int? = nil, callTimeLimit: Duration? = nil) {
            self.instructionBudget = instructionBudget
            self.memoryLimit = memoryLimit
            self.callTimeLimit = callTimeLimit
        }

        /// Whether it changes nothing.
        public var isEmpty: Bool { instructionBudget == nil && memoryLimit == nil && callTimeLimit == nil }
    }

    /// Runs `body` with `limits` in place of the VM's own, for the outermost guest calls it makes; a
    /// call already inside a guest call keeps the limits it runs under (nested calls share them).
    public func withLimits<R, E: Error>(_ limits: Limits, _ body: () throws(E) -> R) throws(E) -> R {
        let pointee = runtime.limits
        guard !limits.isEmpty, pointee.pointee.guest_depth == 0 else { return try body() }
        let saved = (pointee.pointee.instruction_budget, pointee.pointee.memory_limit, runtime.callTimeLimit)
        if let budget = limits.instructionBudget { pointee.pointee.instruction_budget = Int64(budget) }
        if let memory = limits.memoryLimit { pointee.pointee.memory_limit = memory }
        if let time = limits.callTimeLimit { runtime.callTimeLimit = LuaDeadline.seconds(of: time) }
        defer {
            (pointee.pointee.instruction_budget, pointee.pointee.memory_limit, runtime.callTimeLimit) = saved
        }
        return try body()
    }
}
