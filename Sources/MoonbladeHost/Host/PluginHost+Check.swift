extension PluginHost {
    /// Loads and shape-checks the plugins in `directories` without starting a store, so no item and no
    /// observer rule (`on_start` included) runs: only each `plugin.lua`'s top level, which declares it.
    ///
    /// A rule naming an item of its own plugin that does not exist refuses the plugin; one naming an
    /// item of another plugin that none of `directories` has is a warning: that plugin may be missing,
    /// or the name may be a Swift item the host app registers.
    ///
    /// - Returns: the plugins that loaded, in order, why each of the others was refused, and the
    ///   warnings about the names their rules give.
    /// - Throws: only when the Lua VM cannot be created.
    public static func check(
        plugins directories: [String], configuration: Configuration = Configuration()
    ) throws(PluginError) -> (plugins: [PluginInfo], errors: [PluginError], warnings: [PluginError]) {
        let runtime = try PluginRuntime<S>(
            configuration: configuration.vm, sideEffectTimeLimit: configuration.sideEffectTimeLimit,
            pluginLimits: configuration.pluginLimits, dependencies: PluginDependencies(), maxCascadeDepth: configuration.maxCascadeDepth,
            logger: configuration.logger)
        var errors: [PluginError] = []
        for directory in directories {
            do {
                try runtime.loadPlugin(from: directory)
            } catch {
                errors.append(error)
            }
        }
        let plugins = runtime.loadedPlugins
        let known = Set(plugins.flatMap { $0.updaters + $0.sideEffects })
        let rules = runtime.withLua { lua in lua.code.observers }
        let warnings = rules.flatMap { rule in
            rule.itemNames.filter { !known.contains($0) }.map { name in
                PluginError(
                    .unknownItem, plugin: rule.plugin, item: rule.name,
                    message: "names \(name), which none of the plugins checked has (a plugin left out, or a Swift item?)",
                    location: rule.location)
            }
        }
        return (plugins, errors, warnings)
    }
}
