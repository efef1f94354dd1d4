import Foundation

extension PluginHost {
    /// The folders whose plugin did not load at start and has not loaded since, in order.
    public var unloadedDirectories: [String] {
        let loaded = Set(plugins.map(\.directory))
        return refusedDirectories.filter { !loaded.contains($0) }
    }

    /// Loads the plugin in `directory` into the running host: one that did not load at start, once it
    /// is fixed. Its items, interceptors and rules work from then on; its `on_start` rules do not run
    /// (the store has started). The watchers of ``watchPlugins(debounce:pollingInterval:)`` still running
    /// watch its folder from then on.
    ///
    /// Reported to ``reloadEvents()`` as ``PluginReloadEvent/Step/loaded(_:)`` or
    /// ``PluginReloadEvent/Step/refused(plugin:_:)`` (cause ``PluginReloadCause/call``) and to the
    /// logger, its entries carrying `reload` metadata as a reload's do.
    ///
    /// - Throws: why the plugin does not load (with `file:line`); the running plugins are untouched.
    @discardableResult
    public func load(plugin directory: String) throws(PluginError) -> PluginInfo {
        try load(plugin: directory, cause: .call)
    }

    /// ``load(plugin:)``, its events reporting `cause`.
    func load(plugin directory: String, cause: PluginReloadCause) throws(PluginError) -> PluginInfo {
        let folder = URL(fileURLWithPath: directory).lastPathComponent
        reloadEventHub.send(PluginReloadEvent(step: .started(plugin: folder), cause: cause))
        do throws(PluginError) {
            let info = try runtime.loadPlugin(from: directory)
            onLoad?(info)
            // Edited from now on, it reloads like the plugins the host started with.
            for watcher in watchers.running { watcher.watch(directory) }
            reloadEventHub.send(PluginReloadEvent(step: .loaded(info), cause: cause))
            logger.info(
                "loaded plugin \(info.name) (version \(info.version))", metadata: ["reload": "loaded", "plugin": "\(info.name)"])
            return info
        } catch {
            reloadEventHub.send(PluginReloadEvent(step: .refused(plugin: folder, error), cause: cause))
            logger.error(
                "plugin in \(directory) still does not load: \(error)", metadata: ["reload": "refused", "plugin": "\(folder)"])
            throw error
        }
    }
}
