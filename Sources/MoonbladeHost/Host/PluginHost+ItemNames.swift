import Moonblade

extension PluginHost {
    /// The plugin item name `dispatchable` runs, for tools that watch the host's store from an
    /// interceptor (the test harness): a Lua item's, a typed wrapper's, or the name its Swift type
    /// is registered under with ``register(_:as:)``; nil for other items.
    package func itemName(of dispatchable: any Dispatchable) -> String? {
        if let wrapper = dispatchable as? any LuaTypedWrapper { return type(of: wrapper).luaItem }
        return runtime.catalog.name(of: dispatchable)
    }

    /// What the item `name` is (a Lua updater or side effect, or a registered Swift item); nil when
    /// no item has that name.
    package func kind(of name: String) -> PluginItemKind? {
        runtime.kind(of: name)
    }
}

extension PluginHost {
    /// The payload of the Lua item `dispatchable` as JSON (null for none), for tools that check what
    /// was dispatched (the tester's `receive(_:_:)`); nil for other items and payloads with no JSON form.
    package func payload(of dispatchable: any Dispatchable) -> JSONValue? {
        guard let item = dispatchable as? any LuaItem else { return nil }
        do { return try item.payload.json() ?? .null } catch { return nil }
    }
}
