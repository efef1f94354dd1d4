import MoonbladeLua

/// One plugin's own limits, in place of the host-wide ones of ``PluginHost/Configuration``; a nil
/// field keeps the host-wide setting.
///
/// They apply while that plugin's updaters, side effects and observer rules run. Lua interceptors run
/// as one chain across plugins and keep the host-wide limits. The memory limit caps what the VM holds
/// (one VM serves every plugin) while the plugin's code runs.
public struct PluginLimits: Sendable, Hashable {
    /// The most Lua instructions one call of the plugin's code may run.
    public var instructionBudget: Int?
    /// The most memory, in bytes, the VM may hold while the plugin's code runs.
    public var memoryLimit: Int?
    /// The wall-clock limit of one updater or rule call.
    public var callTimeLimit: Duration?
    /// The longest one of the plugin's side effects may take, awaits included.
    public var sideEffectTimeLimit: Duration?

    /// Limits for one plugin; each one left nil keeps the host-wide setting.
    public init(
        instructionBudget: Int? = nil, memoryLimit: Int? = nil, callTimeLimit: Duration? = nil,
        sideEffectTimeLimit: Duration? = nil
    ) {
        self.instructionBudget = instructionBudget
        self.memoryLimit = memoryLimit
        self.callTimeLimit = callTimeLimit
        self.sideEffectTimeLimit = sideEffectTimeLimit
    }

    /// The VM's share: what stands in for the VM's own limits.
    var vm: LuaVM.Limits {
        LuaVM.Limits(instructionBudget: instructionBudget, memoryLimit: memoryLimit, callTimeLimit: callTimeLimit)
    }
}
