import MoonbladeLua

/// The Lua functions of items by item name, kept apart by kind, so that an item only ever runs as the
/// kind it was declared as (a typed wrapper naming an item of the other kind is an error, not a call).
struct ItemFunctions {
    /// Updaters, and each plugin's `migrate` under ``CompiledPlugin/migrationItem(of:)``.
    var updaters: [String: LuaReference] = [:]
    var sideEffects: [String: LuaReference] = [:]

    /// Adds `other`'s functions, replacing any of the same names.
    mutating func merge(_ other: ItemFunctions) {
        updaters.merge(other.updaters) { _, new in new }
        sideEffects.merge(other.sideEffects) { _, new in new }
    }

    /// Removes the functions named in `other`.
    mutating func remove(_ other: ItemFunctions) {
        for item in other.updaters.keys { updaters[item] = nil }
        for item in other.sideEffects.keys { sideEffects[item] = nil }
    }

    /// The function of `item` of either kind.
    subscript(item: String) -> LuaReference? {
        updaters[item] ?? sideEffects[item]
    }

    /// Where the Lua function of `item` is defined; nil when there is no such item.
    func definition(of item: String, on stack: LuaStack) -> LuaLocation? {
        guard let function = self[item] else { return nil }
        function.push(onto: stack)
        defer { stack.pop() }
        return stack.definitionLocation(ofFunctionAt: -1)
    }
}
