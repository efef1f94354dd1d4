import Foundation
import MoonbladeLua
import MoonbladeResidentState

extension PluginCode {
    /// The chunks of the host's own Lua glue, where no error of a plugin's is placed.
    static let glueChunks: Set<String> = [
        SideEffectPrelude.chunkName, LuaInterceptorChain.chunkName, LuaStack.awaitChunkName,
        LuaResidentState.chunkName,
    ]

    /// A plugin error for `item`, placed where the plugin author should look: the Lua line when one
    /// was running, else where the item is defined (memory errors have no line, and a plugin's
    /// `return ctx.deps.x()` tail call leaves no frame of its own); never the host's glue.
    func pluginError(_ error: LuaError, item: String, plugin: String? = nil, on stack: LuaStack) -> PluginError {
        var failure = PluginError(error, plugin: plugin ?? pluginName(ofItem: item), item: item)
        if let place = failure.location, Self.glueChunks.contains(place.source) {
            // Stopped in the host's glue (a limit inside a draft's metamethod): the plugin line below it.
            failure.location = Self.pluginFrame(in: error.traceback)
        }
        if failure.location == nil {
            failure.location = definition(of: item, on: stack)
        }
        return failure
    }

    /// The innermost `file:line` of a Lua traceback that is not in the host's glue or in C.
    private static func pluginFrame(in traceback: String?) -> LuaLocation? {
        traceback?.split(separator: "\n").lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .compactMap { LuaLocation(messagePrefix: $0) }
            .first { !glueChunks.contains($0.source) && $0.source != "[C]" }
    }

    /// A value that could not cross between Lua and Swift for `item`, with the decoding path if any.
    func valueError(_ error: any Error, item: String, root: String, on stack: LuaStack) -> PluginError {
        let message =
            switch error {
            case let error as DecodingError: LuaDecoder.describe(error, root: root)
            case let error as EncodingError: LuaEncoder.describe(error, root: root)
            default: "\(root): \(error)"
            }
        return PluginError(
            .invalidValue, plugin: pluginName(ofItem: item), item: item, message: message,
            location: definition(of: item, on: stack), underlying: error)
    }
}
