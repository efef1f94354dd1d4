/// LuaLS (`---@meta`) definitions for plugin code: the plugin table, `ctx`, the dependencies the host
/// exposes with their argument and result shapes, and the state's shape where the host knows it.
///
/// Made by ``PluginHost/luaTypeDefinitions(dependencies:)``; `moonblade types` writes them to a file a
/// plugin's `.luarc.json` names in `workspace.library`, so LuaLS completes and checks plugin code.
public enum LuaTypeDefinitions {
    /// The fields of `ctx` the definitions describe.
    public static let contextFields = ["state", "dispatch", "deps"]

    /// The definitions for a host with `dependencies` and a state of shape `state`.
    static func text(state: LuaShape, dependencies: PluginDependencies) -> String {
        var lines = [
            "---@meta moonblade",
            "-- Editor types for Moonblade plugins, written by `moonblade types`: do not edit.",
            "",
        ]
        lines += stateLines(state)
        lines += [
            "",
            "---What a side effect gets: the store and the Swift functions the host exposes.",
            "---@class moonblade.Context",
            "---@field state fun(): moonblade.State A copy of the state now.",
            "---@field dispatch fun(name: string, payload?: any): any Runs an item to completion; a side effect's result.",
            "---@field deps moonblade.Deps The host's Swift functions, each awaited.",
            "",
            "---@class moonblade.Deps",
        ]
        let groups = dependencies.shapes.keys.sorted()
        lines += groups.map { "---@field \($0) moonblade.deps.\($0)" }
        var objects: [(name: String, fields: [LuaShape.Field])] = []
        for group in groups {
            lines += ["", "---@class moonblade.deps.\(group)"]
            let functions = dependencies.shapes[group] ?? [:]
            for name in functions.keys.sorted() {
                let (arguments, result) = functions[name]!
                let parameter = arguments.map { "arguments: \(luaName($0))" } ?? ""
                let returns = result.map { ": \(luaName($0))" } ?? ""
                lines.append("---@field \(name) fun(\(parameter))\(returns)")
                objects += (arguments?.objects ?? []) + (result?.objects ?? [])
            }
        }
        lines += classes(objects, skipping: state.objects.map(\.name))
        lines += [
            "",
            "---An item as interceptors see it.",
            "---@class moonblade.Item",
            "---@field name string `plugin.item`",
            "---@field kind \"updater\"|\"side_effect\"",
            "---@field payload any A copy of the payload.",
            "",
            "---An observer rule: one trigger and what it dispatches (a name, or { name, payload or function }).",
            "---@class moonblade.Rule",
            "---@field on_start? boolean|(string|table)[]",
            "---@field on_dispatch? string",
            "---@field on_state_change? fun(old: moonblade.State, new: moonblade.State): boolean",
            "---@field on_notification? string",
            "---@field dispatch? (string|table)[]",
            "",
            "---What `plugin.lua` returns.",
            "---@class moonblade.Plugin",
            "---@field name? string The plugin's name (default: its folder's).",
            "---@field version? integer Raise it, with `migrate`, when the state's shape changes.",
            "---@field updaters? table<string, fun(state: moonblade.State, payload: any): moonblade.State?>",
            "---@field side_effects? table<string, fun(ctx: moonblade.Context, payload: any): any>",
            "---@field interceptors? (fun(item: moonblade.Item, next: fun(item: moonblade.Item)))[]",
            "---@field observers? moonblade.Rule[]",
            "---@field migrate? fun(state: moonblade.State, from_version: integer): moonblade.State?",
            "",
            "---Loads `name.lua` (dots for subfolders) from the plugin's own folder, once per version.",
            "---@param name string",
            "---@return any",
            "function require(name) end",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    /// `moonblade.State`: the state's class, or `table` for a dynamic state.
    private static func stateLines(_ state: LuaShape) -> [String] {
        guard case .object(let name, let fields) = state else {
            return ["---The store's state (dynamic: any table).", "---@alias moonblade.State table"]
        }
        var lines = ["---The store's state: the Swift type \(name).", "---@class moonblade.State"]
        lines += fields.map { "---@field \($0.name) \(luaName($0.shape))" }
        lines += classes(state.objects.dropFirst().map { $0 }, skipping: [])
        return lines
    }

    private static func classes(_ objects: [(name: String, fields: [LuaShape.Field])], skipping: [String]) -> [String] {
        var seen = Set(skipping)
        var lines: [String] = []
        for object in objects where seen.insert(object.name).inserted {
            lines += ["", "---@class \(className(object.name))"]
            lines += object.fields.map { "---@field \($0.name) \(luaName($0.shape))" }
        }
        return lines
    }

    /// The shape as LuaLS spells it, objects as `moonblade.types.<Name>`.
    private static func luaName(_ shape: LuaShape) -> String {
        var text = shape.luaType
        for object in shape.objects {
            text = text.replacingOccurrences(of: object.name, with: className(object.name))
        }
        return text
    }

    private static func className(_ name: String) -> String {
        "moonblade.types." + String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }
}
