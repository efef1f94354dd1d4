/// One step of a plugin reload and who asked for the reload; see ``PluginHost/reloadEvents()``.
public struct PluginReloadEvent: Sendable {
    /// What happened.
    public enum Step: Sendable {
        /// The host began reading the plugin's folder again.
        case started(plugin: String)
        /// The new version runs: every item dispatched from now on uses it.
        case succeeded(PluginInfo)
        /// The new version's `migrate` ran on the state, its version having risen.
        case migrated(plugin: String, from: Int, to: Int)
        /// The new version did not load, or its migration failed: the earlier version keeps running.
        case failed(plugin: String, PluginError)
        /// A plugin that was not running (it did not load at start) loaded: its items run from now on.
        case loaded(PluginInfo)
        /// A plugin that was not running still does not load; `plugin` is its folder's name.
        case refused(plugin: String, PluginError)
    }

    /// Where the reload is.
    public var step: Step
    /// Who started the reload: a host showing the events can leave the ones it asked for to the caller.
    public var cause: PluginReloadCause

    /// The plugin the event is about.
    public var plugin: String {
        switch step {
        case .started(let plugin), .migrated(let plugin, _, _), .failed(let plugin, _), .refused(let plugin, _): plugin
        case .succeeded(let info), .loaded(let info): info.name
        }
    }

    /// Whether the event ends its reload: it succeeded or failed.
    public var isOutcome: Bool {
        switch step {
        case .succeeded, .failed, .loaded, .refused: true
        case .started, .migrated: false
        }
    }
}

/// Who started a plugin reload.
public enum PluginReloadCause: Sendable {
    /// ``PluginHost/watchPlugins(debounce:pollingInterval:)``, on a change to the plugin's files.
    case watcher
    /// A call of ``PluginHost/reload(plugin:)`` or ``PluginHost/load(plugin:)``.
    case call
}
