import MoonbladeHost

extension PluginReloadEvent {
    /// The event as a line for a person (`reloaded cart (version 2)`, `migrated cart from version 1 to 2`,
    /// `error: reload of cart failed: cart/plugin.lua:12: …`, `loaded cart (version 1)` for a plugin
    /// that did not load at start), or nil for the start of a reload (its
    /// outcome follows soon).
    var line: String? {
        switch step {
        case .started: nil
        case .succeeded(let info): "reloaded \(info.name) (version \(info.version))"
        case .migrated(let plugin, let from, let to): "migrated \(plugin) from version \(from) to \(to)"
        case .failed(let plugin, let error):
            "error: reload of \(plugin) failed: \(Self.place(error)) (the earlier version keeps running)"
        case .loaded(let info): "loaded \(info.name) (version \(info.version))"
        case .refused(let plugin, let error): "error: \(plugin) still does not load: \(Self.place(error))"
        }
    }

    /// `place: message`, without the plugin's name the line has already given.
    private static func place(_ error: PluginError) -> String {
        [error.location?.description, error.message].compactMap { $0 }.joined(separator: ": ")
    }
}
