import Moonblade

/// The plugin item name `dispatchable` runs, for tools that watch a host's store from an interceptor
/// (the test harness): the name of a Lua item, or of a typed Swift face of one; nil for other items.
package func pluginItemName(of dispatchable: any Dispatchable) -> String? {
    switch dispatchable {
    case let item as any LuaItem: item.item
    case let face as any LuaItemFace: type(of: face).luaItem
    default: nil
    }
}
