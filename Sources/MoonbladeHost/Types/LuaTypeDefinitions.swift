import MoonbladeLua

/// LuaLS (`---@meta`) definitions for plugin code: the plugin table, `ctx`, the dependencies the host
/// exposes with their argument and result shapes, and the state's shape where the host knows it.
///
/// Made by ``PluginHost/luaTypeDefinitions(dependencies:)``; `moonblade types` writes them to a file a
/// plugin's `.luarc.json` names in `workspace.library`, so LuaLS completes and checks plugin code.
public enum LuaTypeDefinitions {
    /// What `ctx` holds, as the side effect prelude installs it: each field's LuaLS type and meaning.
    /// A test checks these names against a live `ctx`.
    static let context: [(name: String, type: String, doc: String)] = [
        (
            "state", "fun(): moonblade.State",
            "The state now, as a read-only view (no copy): read it again after an await to see what changed."
        ),
        (
            "dispatch", "fun(name: moonblade.ItemName, payload?: any, options?: moonblade.DispatchOptions): any",
            "Runs an item to completion and returns a side effect's result; a failure is raised here."
        ),
        ("deps", "moonblade.Deps", "The host's Swift functions, each awaited."),
    ]

    /// What the `moonblade` global holds, as `pushTableKindLibrary` installs it. A test checks these
    /// names against the live library.
    static let library: [(name: String, type: String, doc: String)] = [
        ("array", "fun(): table", "An empty table that stays a JSON array ([]) when it reaches the state or JSON."),
        ("object", "fun(): table", "An empty table that stays a JSON object ({}) when it reaches the state or JSON."),
        ("null", "lightuserdata", "JSON's null where a table must keep it (a nil would remove the key)."),
    ]

    /// The fields of `ctx` the definitions describe.
    public static let contextFields = context.map(\.name)

    /// The fields of the `moonblade` global the definitions describe.
    public static let libraryFields = library.map(\.name)

    /// The definitions for a host with `dependencies`, a state of shape `state`, and the items
    /// `itemNames` (none: an item name is any string).
    static func text(state: LuaShape, dependencies: PluginDependencies, itemNames: [String] = []) -> String {
        var lines = [
            "---@meta moonblade",
            "-- Editor types for Moonblade plugins, written by `moonblade types`: do not edit.",
            "",
        ]
        lines += stateLines(state)
        let names = itemNames.isEmpty ? "string" : itemNames.sorted().map { "\"\($0)\"" }.joined(separator: "|")
        lines += [
            "",
            "---The items plugins can dispatch.",
            "---@alias moonblade.ItemName \(names)",
            "",
            "---`ctx.dispatch`'s options: run the whole dispatch again while it fails.",
            "---@class moonblade.DispatchOptions",
            "---@field retries? integer How many times to try again (default 0).",
            "---@field delay? number Seconds between two tries (default 0).",
            "",
            "---What a side effect gets: the store and the Swift functions the host exposes.",
            "---@class moonblade.Context",
        ]
        lines += context.map { "---@field \($0.name) \($0.type) \($0.doc)" }
        lines += [
            "",
            "---The library every plugin and spec sees as the global `moonblade` (read-only).",
            "---@class moonblade.Library",
        ]
        lines += library.map { "---@field \($0.name) \($0.type) \($0.doc)" }
        lines += ["---@type moonblade.Library", "moonblade = nil", "", "---@class moonblade.Deps"]
        let groups = dependencies.shapes.keys.sorted()
        lines += groups.map { "---@field \(fieldName($0)) \(groupClassName($0))" }
        var objects: [LuaShape.Object] = []
        for group in groups {
            lines += ["", "---@class \(groupClassName(group))"]
            let functions = dependencies.shapes[group] ?? [:]
            for name in functions.keys.sorted() {
                let (arguments, result) = functions[name]!
                let parameter = arguments.map { "arguments: \(luaName($0))" } ?? ""
                let returns = result.map { ": \(luaName($0))" } ?? ""
                lines.append("---@field \(fieldName(name)) fun(\(parameter))\(returns)")
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
            "---@field on_start? boolean|(moonblade.ItemName|table)[]",
            "---@field on_dispatch? moonblade.ItemName",
            "---@field on_state_change? fun(old: moonblade.State, new: moonblade.State): boolean",
            "---@field on_notification? string",
            "---@field dispatch? (moonblade.ItemName|table)[]",
            "",
            "---What `plugin.lua` returns: `---@type moonblade.Plugin` on `local plugin = { ... }`, then `return plugin`.",
            "---@class moonblade.Plugin",
            "---@field name? string The plugin's name (default: its folder's).",
            "---@field version? integer Raise it, with `migrate`, when the state's shape changes.",
            "---@field updaters? table<string, fun(state: moonblade.State, payload: any): moonblade.State?>",
            "---@field side_effects? table<string, fun(ctx: moonblade.Context, payload: any): any>",
            "---@field interceptors? (fun(item: moonblade.Item, next: fun(item?: moonblade.Item)))[] `next()` passes the item on as it is; not calling it drops it.",
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
        switch state {
        case .object, .partialObject:
            let objects = state.objects
            let root = objects[0].name
            // A state type that holds itself names its own class, moonblade.State.
            let naming = { (name: String) in name == root ? "moonblade.State" : className(name) }
            var lines = ["---The store's state: the Swift type \(root).", "---@class moonblade.State"]
            lines += fieldLines(objects[0], naming: naming)
            lines += classes(Array(objects.dropFirst()), skipping: [], naming: naming)
            return lines
        default:
            return ["---The store's state (dynamic: any table).", "---@alias moonblade.State table"]
        }
    }

    private static func classes(
        _ objects: [LuaShape.Object], skipping: [String], naming: (String) -> String = className
    ) -> [String] {
        var seen = Set(skipping)
        var lines: [String] = []
        for object in objects where seen.insert(object.name).inserted {
            lines += ["", "---@class \(naming(object.name))"]
            lines += fieldLines(object, naming: naming)
        }
        return lines
    }

    /// A class's fields; one whose fields are not all known takes any other key too.
    private static func fieldLines(_ object: LuaShape.Object, naming: (String) -> String) -> [String] {
        object.fields.map { "---@field \(fieldName($0.name)) \($0.shape.luaType(naming: naming))" }
            + (object.isComplete ? [] : ["---@field [string] any The fields past the first the editor types could not read."])
    }

    /// The shape as LuaLS spells it, objects as `moonblade.types.<Name>`.
    private static func luaName(_ shape: LuaShape) -> String {
        shape.luaType(naming: className)
    }

    private static func className(_ name: String) -> String {
        "moonblade.types." + identifier(name)
    }

    private static func groupClassName(_ group: String) -> String {
        "moonblade.deps." + identifier(group)
    }

    /// `name` with every character that cannot be in a Lua name as `_` (a class name: `Box<Item>`).
    private static func identifier(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
    }

    /// A field's name as LuaLS reads it: bare when it is a Lua name, else a quoted string, escaped as
    /// Lua escapes it (`["with-dash"]`, `["end"]`, `["line\nbreak"]`): a line break in a key broke
    /// the definitions' line in two.
    static func fieldName(_ name: String) -> String {
        guard !LuaCodingPath.isIdentifier(name) else { return name }
        var quoted = "[\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                // Three digits, so that a digit after it is not read as part of it.
                let digits = String(scalar.value)
                quoted += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\"]"
    }
}
