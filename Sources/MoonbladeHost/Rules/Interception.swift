import Moonblade
import MoonbladeLua

/// An item on its way through the plugins' interceptors: what the last `next` needs to hand on
/// what comes out of them.
final class Interception {
    /// The item as it was dispatched.
    let original: any Dispatchable
    /// The name it was dispatched under.
    let name: String
    let isUpdater: Bool
    /// The payload Lua saw, for a Swift item: passed on unchanged, the original item goes on.
    let swiftPayload: LuaValue?
    /// How many reactions down a chain it was dispatched.
    let cascadeDepth: Int
    /// Hands an item to the rest of the store's interceptor chain.
    let deliver: (any Dispatchable) throws -> Void

    init(
        original: any Dispatchable, name: String, isUpdater: Bool, swiftPayload: LuaValue?, cascadeDepth: Int,
        deliver: @escaping (any Dispatchable) throws -> Void
    ) {
        self.original = original
        self.name = name
        self.isUpdater = isUpdater
        self.swiftPayload = swiftPayload
        self.cascadeDepth = cascadeDepth
        self.deliver = deliver
    }
}
