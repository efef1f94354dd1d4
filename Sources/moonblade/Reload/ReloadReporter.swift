import MoonbladeHost

/// Reports plugin reloads on standard error as one line each: `reloaded cart (version 2)`,
/// `migrated cart from version 1 to 2`, `error: reload of cart failed: cart/plugin.lua:12: …`.
///
/// A reload the repl's `reload` command asked for is that command's to report, so the reporter leaves
/// out that plugin's events until the reload's outcome (see ``leaveNextReload(of:)``).
actor ReloadReporter {
    /// How many reloads of each plugin their caller reports itself.
    private var reloadsReportedElsewhere: [String: Int] = [:]

    /// Leaves the events of the next reload of `plugin` out, up to its outcome (succeeded or failed).
    func leaveNextReload(of plugin: String) {
        reloadsReportedElsewhere[plugin, default: 0] += 1
    }

    func report(_ event: PluginReloadEvent) {
        let plugin = event.plugin
        if let pending = reloadsReportedElsewhere[plugin] {
            if event.isOutcome {
                reloadsReportedElsewhere[plugin] = pending > 1 ? pending - 1 : nil
            }
            return
        }
        if let line = event.line {
            Console.printError(line)
        }
    }
}

extension PluginReloadEvent {
    /// The plugin the event is about.
    var plugin: String {
        switch self {
        case .started(let plugin), .migrated(let plugin, _, _), .failed(let plugin, _): plugin
        case .succeeded(let info): info.name
        }
    }

    /// Whether the event ends a reload.
    var isOutcome: Bool {
        switch self {
        case .succeeded, .failed: true
        case .started, .migrated: false
        }
    }

    /// The event as a line for a person, or nil for the start of a reload (its outcome follows soon).
    var line: String? {
        switch self {
        case .started: nil
        case .succeeded(let info): "reloaded \(info.name) (version \(info.version))"
        case .migrated(let plugin, let from, let to): "migrated \(plugin) from version \(from) to \(to)"
        case .failed(let plugin, let error):
            "error: reload of \(plugin) failed: "
                + [error.location?.description, error.message].compactMap { $0 }.joined(separator: ": ")
                + " (the earlier version keeps running)"
        }
    }
}
