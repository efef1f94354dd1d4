import Moonblade
import MoonbladeLua

/// What can be dispatched, as one immutable value that any thread reads without the VM: the loaded
/// plugins, every item name with its kind, the registered Swift items and which rules exist.
///
/// ``PluginCode`` makes a new one each time a plugin is installed, and Swift registrations add to it;
/// the runtime publishes it whole, so a dispatch never sees half of a reload.
struct PluginCatalog: Sendable {
    /// The running version of every loaded plugin, in load order.
    var plugins: [PluginInfo] = []
    /// Item names to kinds: Lua items and registered Swift ones.
    private var kinds: [String: PluginItemKind] = [:]
    /// The names of registered Swift dispatchables, by type.
    private var swiftNames: [ObjectIdentifier: String] = [:]
    /// The types registered Swift dispatchables are, by name, for messages.
    private var swiftTypes: [String: String] = [:]
    /// Which kinds of rules the plugins have: the store skips the VM when there are none.
    private(set) var rules = RuleKinds()

    /// What `name` stands for, nil when nothing is registered under it.
    func kind(of name: String) -> PluginItemKind? {
        kinds[name]
    }

    /// Every item name, Lua and Swift, sorted: what an unknown name is compared with.
    var itemNames: [String] {
        kinds.keys.sorted()
    }

    /// The name Lua knows `dispatchable` by: its Lua item, or the name its Swift type is registered under.
    func name(of dispatchable: any Dispatchable) -> String? {
        if let item = dispatchable as? any LuaItem { return item.item }
        return swiftNames[ObjectIdentifier(type(of: dispatchable))]
    }

    /// This catalog with the Lua items and rules of `code`'s plugins in place of the earlier ones, the
    /// items as `updaters` and `sideEffects` resolve them.
    func replacingPlugins(
        with infos: [PluginInfo], updaters: [String: ResolvedLuaItem], sideEffects: [String: ResolvedLuaItem],
        rules: RuleKinds
    ) -> PluginCatalog {
        var catalog = self
        for plugin in plugins {
            for item in plugin.updaters + plugin.sideEffects { catalog.kinds[item] = nil }
        }
        for plugin in infos {
            for item in plugin.updaters { catalog.kinds[item] = updaters[item].map(PluginItemKind.luaUpdater) }
            for item in plugin.sideEffects { catalog.kinds[item] = sideEffects[item].map(PluginItemKind.luaSideEffect) }
        }
        catalog.plugins = infos
        catalog.rules = rules
        return catalog
    }

    /// This catalog with the Swift dispatchable `Item` reachable from Lua as `name`; this one when it
    /// already is.
    ///
    /// A name stands for one item and an item has one name (the one Lua rules and the journal know it
    /// by), so nothing is ever replaced: a taken name is an error, not a silent shadow.
    ///
    /// - Throws: ``PluginError/Kind/duplicate`` when a Lua item has `name` (placed where `definition`
    ///   says it is defined), another Swift type is registered as `name`, or `Item` is registered under
    ///   another name.
    func registering<Item: Dispatchable & Decodable>(
        _ type: Item.Type, as name: String, definedAt definition: (String) -> LuaLocation?
    ) throws(PluginError) -> PluginCatalog {
        let registered = swiftNames[ObjectIdentifier(type)]
        if registered == name { return self }
        let refusal = "\(Item.self) cannot be registered as \(name)"
        func taken(by item: ResolvedLuaItem, _ kind: String) -> PluginError {
            PluginError(
                .duplicate, plugin: item.plugin, item: name,
                message: "\(refusal): plugin \(item.plugin) has \(kind) of that name", location: definition(name))
        }
        if case .luaUpdater(let item) = kinds[name] { throw taken(by: item, "an updater") }
        if case .luaSideEffect(let item) = kinds[name] { throw taken(by: item, "a side effect") }
        if let other = swiftTypes[name] {
            throw PluginError(.duplicate, item: name, message: "\(refusal): \(other) is registered under that name")
        }
        if let registered {
            throw PluginError(
                .duplicate, item: name,
                message: "\(refusal): it is registered as \(registered), and an item has one name "
                    + "(the one Lua rules see it by)")
        }
        var catalog = self
        catalog.kinds[name] = .swift(isUpdater: Item.self is any AnyStateUpdater.Type) { stack, index, decoder in
            try decoder.decode(Item.self, from: stack, at: index)
        }
        catalog.swiftNames[ObjectIdentifier(type)] = name
        catalog.swiftTypes[name] = String(describing: Item.self)
        return catalog
    }

    /// Refuses `plugin` when one of its items has a name a Swift item is registered under: the plugin
    /// would shadow it. The error names the first such item, placed where `definition` says it is defined.
    func checkNoSwiftItem(
        in plugin: PluginInfo, definedAt definition: (String) -> LuaLocation?
    ) throws(PluginError) {
        let items = plugin.updaters.map { ($0, "updater") } + plugin.sideEffects.map { ($0, "side effect") }
        for (item, kind) in items {
            guard let type = swiftTypes[item] else { continue }
            throw PluginError(
                .duplicate, plugin: plugin.name, item: item,
                message: "plugin \(plugin.name) cannot define the \(kind) \(item.dropFirst(plugin.name.count + 1)): "
                    + "the Swift item \(type) is registered as \(item)",
                location: definition(item))
        }
    }
}

/// Which kinds of Lua rules are loaded, to skip the VM for items no rule can see.
struct RuleKinds: Sendable {
    var interceptors = false
    var observers = false
    /// The names `on_dispatch` rules watch.
    var observedNames: Set<String> = []
    var watchesStateChanges = false

    init(interceptors: Bool = false, observers: [ObserverRule] = []) {
        self.interceptors = interceptors
        self.observers = !observers.isEmpty
        for rule in observers {
            switch rule.trigger {
            case .dispatch(let name): observedNames.insert(name)
            case .stateChange: watchesStateChanges = true
            case .start, .notification: break
            }
        }
    }

    /// Whether an `on_dispatch` or `on_state_change` rule may fire after the item.
    func mayObserve(_ name: String?, isUpdater: Bool) -> Bool {
        (isUpdater && watchesStateChanges) || name.map(observedNames.contains) == true
    }
}
