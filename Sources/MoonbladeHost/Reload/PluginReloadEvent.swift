/// What happened to a plugin reload; see ``PluginHost/reloadEvents()``.
public enum PluginReloadEvent: Sendable {
    /// The host began reading the plugin's folder again.
    case started(plugin: String)
    /// The new version runs: every item dispatched from now on uses it.
    case succeeded(PluginInfo)
    /// The new version's `migrate` ran on the state, its version having risen.
    case migrated(plugin: String, from: Int, to: Int)
    /// The new version did not load, or its migration failed: the earlier version keeps running.
    case failed(plugin: String, PluginError)
}
