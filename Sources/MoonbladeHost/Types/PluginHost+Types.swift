extension PluginHost {
    /// LuaLS definitions for plugins of this host: the plugin table, `ctx`, each of `dependencies`
    /// with its argument and result shapes, and the state `S` as a class (a dynamic `JSONValue` state
    /// is a `table`). Write them to a file that a plugin's `.luarc.json` lists in `workspace.library`.
    ///
    /// - Parameter itemNames: the items plugins may dispatch (`todo.add`), for `ctx.dispatch`'s first
    ///   argument (`moonblade.ItemName`); none: any string.
    public static func luaTypeDefinitions(dependencies: PluginDependencies, itemNames: [String] = []) -> String {
        LuaTypeDefinitions.text(state: LuaShape.of(S.self), dependencies: dependencies, itemNames: itemNames)
    }
}

extension PluginHost {
    /// The fields of `ctx` and of the `moonblade` library as this host's VM installs them, sorted:
    /// what ``LuaTypeDefinitions`` declares is checked against these, so the two cannot drift.
    package var installedVocabulary: (context: [String], library: [String]) {
        runtime.withLua { lua in
            let stack = lua.stack
            let context = lua.sideEffects.contextFieldNames(on: stack)
            guard (try? stack.pushTableKindLibrary()) != nil else { return (context, []) }
            defer { stack.pop() }
            return (context, stack.fieldNames(ofTableAt: -1))
        }
    }
}
