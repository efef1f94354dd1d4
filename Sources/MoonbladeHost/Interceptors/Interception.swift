import Moonblade
import MoonbladeLua

/// An item on its way through the plugins' interceptors: what the last `next` needs to hand on
/// what comes out of them.
struct Interception {
    /// The item as it was dispatched.
    let original: any Dispatchable
    /// The name it was dispatched under.
    let name: String
    let isUpdater: Bool
    /// The payload Lua saw, for a Swift item: passed on unchanged, the original item goes on.
    let swiftPayload: LuaValue?
    /// How many reactions down a chain it was dispatched.
    let cascadeDepth: Int
    /// Hands an item of the original's kind to the rest of the store's interceptor chain, for the
    /// observer rules to see what it changed.
    let deliver: (any Dispatchable) throws -> Void
    /// Hands an item of the other kind to the store's chain, which re-dispatches it (no rule sees it
    /// here: it is observed when it runs).
    let passOn: StoreInterceptorNext
}

/// The items the interceptors handed on for one dispatch, held back with what each changed until the
/// dispatch's transaction commits: rules react to a change only once it is sure to stay.
final class DeliveriesHeldBack {
    var all: [ObservedDelivery] = []
}

/// The Lua thread a Lua interceptor's `next` handed an updater on from. The updater runs on it,
/// synchronously, while that `next` runs: on the same thread, with the VM held (rule 3), which is
/// why carrying it inside a `Sendable` item is safe.
struct InterceptorThread: @unchecked Sendable {
    let stack: LuaStack
}
