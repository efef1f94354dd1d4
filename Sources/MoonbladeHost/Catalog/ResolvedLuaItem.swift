/// A Lua updater or side effect as one install of the plugins resolved it: its plugin, and where its
/// function is.
///
/// The catalog hands it out with the item's kind, so a dispatch by name looks the name up once: running
/// the item then takes its function from a slot and its plugin from here, not from a second
/// dictionary look-up and a plugin name cut from the item name on every dispatch.
///
/// It holds no Lua reference, so any thread may release it: its function is a slot of the
/// ``PluginCode`` install that made it, valid while that install runs. After a reload the item is
/// resolved by name again, so a dispatch queued across a reload runs the new code.
package final class ResolvedLuaItem: Sendable {
    /// The item name, `plugin.item`.
    let item: String
    /// The plugin whose item it is.
    let plugin: String
    /// The install of ``PluginCode`` that made it.
    let install: Int
    /// Where that install keeps the item's function.
    let slot: Int

    init(item: String, plugin: String, install: Int, slot: Int) {
        (self.item, self.plugin, self.install, self.slot) = (item, plugin, install, slot)
    }
}
