import Moonblade
import MoonbladeLua

/// What a registered item name stands for; kept where any thread can look it up without the VM.
package enum PluginItemKind: Sendable {
    /// A Lua updater, as the running install of its plugin resolved it.
    case luaUpdater(ResolvedLuaItem)
    /// A Lua side effect, as the running install of its plugin resolved it.
    case luaSideEffect(ResolvedLuaItem)
    /// A Swift `Decodable` dispatchable: builds it from the payload Lua passes at `payloadIndex`.
    case swift(
        isUpdater: Bool,
        make: @Sendable (_ stack: LuaStack, _ payloadIndex: Int32, _ decoder: LuaDecoder) throws -> any Dispatchable)

    /// Whether the store applies it as a state updater.
    package var isUpdater: Bool {
        switch self {
        case .luaUpdater: true
        case .luaSideEffect: false
        case .swift(let isUpdater, _): isUpdater
        }
    }

    var isSwift: Bool {
        if case .swift = self { true } else { false }
    }
}

/// Splits `plugin.item` into its plugin name.
func pluginName(ofItem item: String) -> String {
    // `#`: a migration, `plugin#migrate`. Bytes, not characters: this runs on every dispatch.
    guard let end = item.utf8.firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "#") }) else {
        return item
    }
    return String(item[..<end])
}

/// The error for a dispatch of a name no item is registered under.
func unknownItemError(_ item: String, among names: [String] = []) -> PluginError {
    PluginError(
        .unknownItem, plugin: pluginName(ofItem: item), item: item,
        message: "no such item is registered" + NameSuggestion.hint(for: item, among: names))
}
