import Foundation
import MoonbladeLua

/// Turns a plugin folder into a ``CompiledPlugin``: compiles and runs its `plugin.lua` in a fresh
/// environment and checks what it returns, without installing anything.
struct PluginLoader {
    let stack: LuaStack
    /// What is running, to refuse a second plugin of the same name.
    let code: PluginCode

    /// Compiles and checks `<directory>/plugin.lua`; what is running stays as it is whatever happens.
    ///
    /// - Parameter current: the plugin this one is to replace, for a reload; it must keep its name.
    func compile(from directory: String, replacing current: PluginInfo?) throws(PluginError) -> CompiledPlugin {
        let folder = URL(fileURLWithPath: directory).lastPathComponent
        let chunkName = "\(folder)/plugin.lua"
        let path = URL(fileURLWithPath: directory).appendingPathComponent("plugin.lua").path
        let source: String
        do throws(FileReadError) {
            source = try FileReader.text(at: path, limit: FileReader.sourceLimit)
        } catch {
            throw PluginError(
                .load, plugin: current?.name ?? folder, message: error.description,
                location: error.line.map { LuaLocation(source: chunkName, line: $0) })
        }
        let base = stack.top
        defer { stack.top = base }
        do {
            try stack.load(source, chunkName: chunkName)
            try stack.pushSandbox()  // its own globals, read-only shared libraries
            try stack.pushTableKindLibrary()  // moonblade.array(), moonblade.object(), moonblade.null
            stack.rawSet(table: -2, field: "moonblade")
            try PluginModules.pushRequire(directory: directory, folder: folder, sandbox: -1, on: stack)
            stack.rawSet(table: -2, field: "require")
            stack.setEnvironment(ofChunkAt: -2)
            try stack.call(results: 1)
        } catch {
            var failure = PluginError(error, plugin: current?.name ?? folder, item: nil)
            failure.kind = .load
            throw failure
        }
        let shape = PluginShapeChecker(stack: stack, chunkName: chunkName, source: source, folder: folder)
        let info = try shape.check(tableAt: stack.top, directory: directory)
        if let current, info.name != current.name {
            throw PluginError(
                .shape, plugin: current.name,
                message: "a reload cannot rename plugin \(current.name) to \(info.name); restart the host for that",
                location: LuaLocation(source: chunkName, line: 1))
        }
        if current == nil, let existing = code.installed[info.name] {
            throw PluginError(
                .duplicate, plugin: info.name,
                message: "a plugin named \(info.name) is already loaded from \(existing.info.directory)",
                location: LuaLocation(source: chunkName, line: 1))
        }
        let rules = try shape.rules(ofTableAt: stack.top, plugin: info.name, items: Set(info.updaters + info.sideEffects))
        return CompiledPlugin(info: info, functions: functions(of: info, tableAt: stack.top), rules: rules)
    }

    /// The plugin's updaters and side effects by item name, and its `migrate` among the updaters under
    /// ``CompiledPlugin/migrationItem(of:)``.
    private func functions(of info: PluginInfo, tableAt index: Int32) -> ItemFunctions {
        func references(in field: String, _ items: [String]) -> [String: LuaReference] {
            defer { stack.pop() }
            stack.rawGet(table: index, field: field)
            return Dictionary(
                uniqueKeysWithValues: items.map { item in
                    stack.rawGet(table: -1, field: String(item.dropFirst(info.name.count + 1)))
                    return (item, stack.popReference())
                })
        }
        var functions = ItemFunctions(
            updaters: references(in: "updaters", info.updaters),
            sideEffects: references(in: "side_effects", info.sideEffects))
        if stack.rawGet(table: index, field: "migrate") == .function {
            functions.updaters[CompiledPlugin.migrationItem(of: info.name)] = stack.popReference()
        } else {
            stack.pop()
        }
        return functions
    }
}
