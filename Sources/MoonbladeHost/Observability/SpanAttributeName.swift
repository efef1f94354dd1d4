/// The attributes a ``PluginHost`` sets on its spans (swift-distributed-tracing).
///
/// Spans are made only when a tracer is bootstrapped or configured (``PluginHost/Configuration/tracer``):
/// `dispatch <item>` for each Lua item, with children `lua` (plugin code running), `state to lua` and
/// `state from lua` (the state mapping), `await <what>` for each Swift dependency or nested dispatch a
/// side effect awaits (a nested dispatch's own span is its child), and `reload <plugin>`.
public enum SpanAttributeName {
    /// The item, `plugin.item`.
    public static let item = "moonblade.item"
    /// `updater` or `side_effect`.
    public static let kind = "moonblade.kind"
    /// The plugin that defines the item, or the plugin reloaded.
    public static let plugin = "moonblade.plugin"
    /// The plugin's version when the item started (after a reload, the new one).
    public static let pluginVersion = "moonblade.plugin.version"
    /// The payload as JSON text, cut to 80 characters (absent when there is none).
    public static let payload = "moonblade.payload"
    /// `ok` or `error`.
    public static let outcome = "moonblade.outcome"
    /// The error's one-line message, when the outcome is `error`.
    public static let error = "moonblade.error"
}
