import MoonbladeLua

/// What the host keeps about a Lua side effect in flight, found by the Swift functions it calls.
struct SideEffectRun {
    /// The item running, `plugin.item`.
    let item: String
    /// The plugin the item belongs to.
    let plugin: String
    /// How many reactions down a chain the side effect was dispatched.
    let cascadeDepth: Int
}

/// A Lua side effect's coroutine: awaits ``PluginValue``s, knows its ``SideEffectRun``.
typealias SideEffectCoroutine = LuaAwaitingCoroutine<PluginValue, SideEffectRun>

/// Swift work a side effect awaits, run outside the VM.
typealias PendingWork = SideEffectCoroutine.Work
