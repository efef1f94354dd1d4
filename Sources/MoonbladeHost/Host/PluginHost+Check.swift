extension PluginHost {
    /// Loads and shape-checks the plugins in `directories` without starting a store, so no item and no
    /// observer rule (`on_start` included) runs: only each `plugin.lua`'s top level, which declares it.
    ///
    /// - Returns: the plugins that loaded, in order, and why each of the others was refused.
    /// - Throws: only when the Lua VM cannot be created.
    public static func check(
        plugins directories: [String], configuration: Configuration = Configuration()
    ) throws(PluginError) -> (plugins: [PluginInfo], errors: [PluginError]) {
        let runtime = try PluginRuntime<S>(
            configuration: configuration.vm, sideEffectTimeLimit: configuration.sideEffectTimeLimit,
            dependencies: PluginDependencies(), maxCascadeDepth: configuration.maxCascadeDepth,
            logger: configuration.logger)
        var errors: [PluginError] = []
        for directory in directories {
            do {
                try runtime.loadPlugin(from: directory)
            } catch {
                errors.append(error)
            }
        }
        return (runtime.catalog.plugins, errors)
    }
}
