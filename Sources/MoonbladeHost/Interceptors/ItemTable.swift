import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Pushes `{ name, kind = "updater"|"side_effect", payload }`: an item as interceptors and observer
    /// rules see it, its payload a copy.
    ///
    /// - Returns: when `keepingPayload`, for a Swift item, the payload as pushed (to tell later whether
    ///   Lua changed it).
    @discardableResult
    func pushItemTable(
        for dispatchable: any Dispatchable, name: String, onto stack: LuaStack, keepingPayload: Bool, _ lua: LuaSide
    ) throws(PluginError) -> LuaValue? {
        do {
            try stack.reserve(3)
            stack.pushTable(fieldCount: 3)
            stack.push(name)
            stack.rawSet(table: -2, field: "name")
            stack.push(dispatchable is any AnyStateUpdater ? "updater" : "side_effect")
            stack.rawSet(table: -2, field: "kind")
            var swiftPayload: LuaValue?
            if let item = dispatchable as? any LuaItem {
                try item.payload.push(onto: stack, encoder: lua.encoder)
            } else {
                try PluginValue(result: dispatchable).push(onto: stack, encoder: lua.encoder)
                if keepingPayload { swiftPayload = try stack.value(at: -1, requiringUTF8: true) }
            }
            stack.rawSet(table: -2, field: "payload")
            return swiftPayload
        } catch {
            throw lua.code.valueError(error, item: name, root: "payload", on: stack)
        }
    }
}
