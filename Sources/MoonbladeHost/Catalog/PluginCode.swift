import Foundation
import MoonbladeLua

/// The Lua side of the catalog: the compiled plugins that run, their functions by item, their rules.
///
/// It holds Lua references, so it lives with the VM and is touched only with the VM held (rule 3);
/// installing a plugin here yields the ``PluginCatalog`` that the runtime publishes for everyone else.
final class PluginCode {
    /// The running version of each plugin, by name.
    private(set) var installed: [String: CompiledPlugin] = [:]
    /// Plugin names in the order they were first loaded: the order of their interceptors and rules.
    private(set) var loadOrder: [String] = []
    /// Every Lua updater and side effect of the running versions, by item name (`todo.add`).
    private(set) var functions = ItemFunctions()
    /// Every plugin's observer rules, in load order.
    private(set) var observers: [ObserverRule] = []
    /// Every plugin's interceptors in load order, as the Lua list the interceptor chain walks.
    private(set) var interceptors: LuaReference?
    /// How many installs there were: a ``ResolvedLuaItem`` is good for the one that made it.
    private var installs = 0
    /// The updaters' functions of the running install, by ``ResolvedLuaItem/slot``.
    private var slots: [LuaReference] = []

    /// Makes `plugin` the running version of its name, in place of any earlier one, and returns
    /// `catalog` updated to match.
    func install(_ plugin: CompiledPlugin, on stack: LuaStack, into catalog: PluginCatalog) -> PluginCatalog {
        let name = plugin.info.name
        if let earlier = installed[name] {
            functions.remove(earlier.functions)
        } else {
            loadOrder.append(name)
        }
        installed[name] = plugin
        functions.merge(plugin.functions)
        let plugins = loadOrder.compactMap { installed[$0] }
        observers = plugins.flatMap(\.rules.observers)
        let chain = plugins.flatMap(\.rules.interceptors)
        interceptors = chain.isEmpty ? nil : stack.makeList(chain)
        installs += 1
        slots = []
        return catalog.replacingPlugins(
            with: plugins.map(\.info), updaters: resolve(functions.updaters), sideEffects: resolve(functions.sideEffects),
            rules: RuleKinds(interceptors: !chain.isEmpty, observers: observers))
    }

    /// `functions` resolved for this install: each function takes the next slot.
    private func resolve(_ functions: [String: LuaReference]) -> [String: ResolvedLuaItem] {
        var resolved: [String: ResolvedLuaItem] = [:]
        for (item, function) in functions {
            resolved[item] = ResolvedLuaItem(item: item, plugin: pluginName(ofItem: item), install: installs, slot: slots.count)
            slots.append(function)
        }
        return resolved
    }

    /// The function of the item `item` resolved, or nil when a reload has installed other code since.
    func function(of item: ResolvedLuaItem) -> LuaReference? {
        item.install == installs ? slots[item.slot] : nil
    }

    /// The function and plugin of `item`: from `resolved` while the install that resolved it runs,
    /// else looked up by name (a dispatch queued across a reload runs the new code).
    func function(
        of item: String, resolved: ResolvedLuaItem?, isUpdater: Bool
    ) throws(PluginError) -> (function: LuaReference, plugin: String) {
        if let resolved, let function = function(of: resolved) { return (function, resolved.plugin) }
        return (try function(of: item, isUpdater: isUpdater), pluginName(ofItem: item))
    }

    /// The function of `item`, which must be of the kind asked for.
    func function(of item: String, isUpdater: Bool) throws(PluginError) -> LuaReference {
        let (own, other) = isUpdater ? (functions.updaters, functions.sideEffects) : (functions.sideEffects, functions.updaters)
        if let function = own[item] { return function }
        guard other[item] == nil else {
            throw PluginError(
                .wrongKind, plugin: pluginName(ofItem: item), item: item,
                message: "is \(isUpdater ? "a side effect" : "an updater"), not \(isUpdater ? "an updater" : "a side effect")")
        }
        throw unknownItemError(item)
    }

    /// Where the Lua function of `item` is defined.
    func definition(of item: String, on stack: LuaStack) -> LuaLocation? {
        functions.definition(of: item, on: stack)
    }

    /// The name of the loaded plugin whose `plugin.lua` has the chunk name `source`.
    func plugin(atSource source: String?) -> String? {
        installed.values.first { "\(URL(fileURLWithPath: $0.info.directory).lastPathComponent)/plugin.lua" == source }?
            .info.name
    }
}

extension LuaStack {
    /// A new Lua list of `references`, in order.
    fileprivate func makeList(_ references: [LuaReference]) -> LuaReference {
        pushTable(arrayCount: Int32(references.count))
        for (position, reference) in references.enumerated() {
            reference.push(onto: self)
            rawSet(table: -2, at: Int64(position + 1))
        }
        return popReference()
    }
}

/// A plugin compiled and checked: what installing it makes run.
struct CompiledPlugin {
    var info: PluginInfo
    /// Its items' functions, and its `migrate` among the updaters under ``migrationItem(of:)``.
    var functions: ItemFunctions
    var rules: PluginRules

    /// The key of a plugin's `migrate` among the functions: never an item name, which has a dot.
    static func migrationItem(of plugin: String) -> String {
        "\(plugin)#migrate"
    }

    var migrates: Bool { functions.updaters[Self.migrationItem(of: info.name)] != nil }
}

/// What the host knows about a loaded plugin.
public struct PluginInfo: Sendable, Hashable {
    /// The plugin's name, the prefix of its items.
    public var name: String
    /// The plugin's `version` (1 when it does not say).
    public var version: Int
    /// The folder it was loaded from.
    public var directory: String
    /// Its updaters' and side effects' item names (`todo.add`).
    public var updaters: [String]
    /// Its side effects' item names (`todo.load`).
    public var sideEffects: [String]
}
