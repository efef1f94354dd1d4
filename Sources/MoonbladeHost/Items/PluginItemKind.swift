import Moonblade
import MoonbladeLua

/// What a registered item name stands for; kept where any thread can look it up without the VM.
enum PluginItemKind: Sendable {
    case luaUpdater
    case luaSideEffect
    /// A Swift `Decodable` dispatchable: builds it from the payload Lua passes at `payloadIndex`.
    case swift(@Sendable (_ stack: LuaStack, _ payloadIndex: Int32, _ decoder: LuaDecoder) throws -> any Dispatchable)
}

/// Splits `plugin.item` into its plugin name.
func pluginName(ofItem item: String) -> String {
    String(item.prefix { $0 != "." })
}
