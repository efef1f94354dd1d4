/// The labels of the metrics a ``PluginHost`` reports through swift-metrics.
///
/// They are recorded only for Lua items (Swift items are the application's to measure), and only
/// when a metrics backend is bootstrapped or configured (``PluginHost/Configuration/metricsFactory``).
public enum MetricName {
    /// A counter of Lua dispatches, by `item`, `kind` (`updater`, `side_effect`) and `outcome` (`ok`, `error`).
    public static let dispatches = "moonblade_dispatches_total"
    /// A timer of Lua dispatches, from the item's start to its end (a side effect's awaits included), by `item`.
    public static let dispatchDuration = "moonblade_dispatch_duration"
    /// A counter of dispatches stopped by a limit, by `limit`: `budget`, `memory` or `time`.
    public static let limitFailures = "moonblade_limit_failures_total"
    /// A counter of reloads, by `plugin` and `outcome` (`ok`, `failed`).
    public static let reloads = "moonblade_reloads_total"
    /// A gauge of the bytes the Lua VM holds, recorded after each Lua dispatch and reload.
    public static let vmMemory = "moonblade_vm_memory_bytes"
}
