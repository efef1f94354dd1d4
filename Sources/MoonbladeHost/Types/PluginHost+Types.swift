extension PluginHost {
    /// LuaLS definitions for plugins of this host: the plugin table, `ctx`, each of `dependencies`
    /// with its argument and result shapes, and the state `S` as a class (a dynamic `JSONValue` state
    /// is a `table`). Write them to a file that a plugin's `.luarc.json` lists in `workspace.library`.
    public static func luaTypeDefinitions(dependencies: PluginDependencies) -> String {
        LuaTypeDefinitions.text(state: LuaShape.of(S.self), dependencies: dependencies)
    }
}
