import Moonblade

/// Brings a state recorded under other plugin versions (by the dispatch journal) up to the versions
/// loaded now, as a reload that raised those versions would have: what the journal runs when a host
/// resumes its state, travels back in time, or replays recorded traffic.
///
/// Each loaded plugin whose version is above the recorded one runs its `migrate(state, from_version)`
/// once, from the recorded version (the loaded code's `migrate` is the only one there is, as in a
/// reload that skips versions), plugins in load order; a plugin without `migrate` keeps the state as
/// it is, as a reload does. A plugin the state was not recorded under (not loaded then, or a journal
/// from before versions were recorded) keeps it too: nothing says its part of the state is older.
/// One transaction: if any migration fails, this throws and the state given is all there is.
package struct PluginMigrator<S: State & Codable>: Sendable {
    let runtime: PluginRuntime<S>

    /// The plugins loaded now, in load order.
    package var plugins: [PluginInfo] { runtime.loadedPlugins }

    /// `state`, recorded under `recorded` (versions by plugin name), as the loaded plugins' code reads it.
    ///
    /// - Throws: ``PluginError/Kind/downgrade`` naming the plugin and both versions when a plugin was
    ///   recorded under a version above the loaded one (nothing migrates a state back), before any
    ///   migration runs; a failing migration's error (item `plugin.migrate`, with its `file:line`).
    package func migrate(_ state: S, recordedUnder recorded: [String: Int]) throws(PluginError) -> S {
        try runtime.migrated(state, recordedUnder: recorded)
    }
}

extension PluginHost {
    /// The loaded plugins' migrations, for states recorded under other versions.
    package var migrator: PluginMigrator<S> { PluginMigrator(runtime: runtime) }
}

extension PluginRuntime {
    /// Runs the `migrate` of `plugin` on `state`, its state having been kept by `version`: as an
    /// updater on the store's state (`outsideStore` false: a reload's swap), or on a state that is not
    /// the store's (a recorded one). Its error names the item `plugin.migrate`.
    func runMigration(of plugin: String, from version: Int, on state: S, outsideStore: Bool) throws(PluginError) -> S {
        do throws(PluginError) {
            return try applyUpdater(
                CompiledPlugin.migrationItem(of: plugin), to: state, payload: .encodable(version), outsideStore: outsideStore)
        } catch {
            var failure = error
            failure.plugin = plugin
            failure.item = "\(plugin).migrate"
            throw failure
        }
    }

    /// See ``PluginMigrator/migrate(_:recordedUnder:)``. With the VM held, so no reload swaps code in
    /// between the versions read and the migrations run.
    func migrated(_ state: S, recordedUnder recorded: [String: Int]) throws(PluginError) -> S {
        try withLua { lua throws(PluginError) in
            // Every downgrade is refused before any migration runs.
            var stale: [(plugin: PluginInfo, from: Int)] = []
            for plugin in loadedPlugins {
                guard let from = recorded[plugin.name], from != plugin.version else { continue }
                guard from < plugin.version else {
                    throw PluginError(
                        .downgrade, plugin: plugin.name,
                        message: "the state was recorded under version \(from) of plugin \(plugin.name), and the loaded "
                            + "version \(plugin.version) is older: nothing migrates a state back (load version \(from) or later)")
                }
                stale.append((plugin, from))
            }
            var state = state
            for (plugin, from) in stale where lua.code.installed[plugin.name]?.migrates == true {
                state = try runMigration(of: plugin.name, from: from, on: state, outsideStore: true)
                logger.info(
                    "migrated a recorded state of plugin \(plugin.name) from version \(from) to \(plugin.version)",
                    metadata: ["plugin": "\(plugin.name)"])
            }
            return state
        }
    }
}
