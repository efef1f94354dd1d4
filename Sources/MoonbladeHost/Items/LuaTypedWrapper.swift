import Moonblade

/// A typed wrapper of a Lua item: a Swift value whose stored properties are the payload of the Lua
/// item it names. Adopt one of ``LuaStateUpdater``, ``LuaSideEffect`` or ``LuaReturningSideEffect``.
public protocol LuaTypedWrapper: Dispatchable, Encodable {
    /// The Lua item this runs, `plugin.item`.
    static var luaItem: String { get }
}

/// The earlier name of ``LuaTypedWrapper``.
@available(*, deprecated, renamed: "LuaTypedWrapper")
public typealias LuaItemFace = LuaTypedWrapper

/// A typed wrapper for a Lua state updater: its stored properties are the payload.
///
/// ```swift
/// struct AddTodo: LuaStateUpdater {
///     static let luaItem = "todo.add"
///     var title: String
/// }
/// store.dispatch(AddTodo(title: "milk"))   // runs todo.add with { title = "milk" }
/// ```
///
/// A ``PluginHost``'s store runs it; dispatched to any other store it fails with
/// ``PluginError/Kind/unbound``.
public protocol LuaStateUpdater: AnyStateUpdater, LuaTypedWrapper {}

extension LuaStateUpdater {
    public func updatedState(currentState: any State) throws -> any State {
        throw unboundError(Self.luaItem)
    }
}

/// A typed wrapper for a Lua side effect that returns nothing Swift needs.
public protocol LuaSideEffect: AnySideEffect, LuaTypedWrapper {}

extension LuaSideEffect {
    public func anySideEffect(_ context: any AnySideEffectContext) async throws -> any Sendable {
        throw unboundError(Self.luaItem)
    }
}

/// A typed wrapper for a Lua side effect whose result decodes into `ReturnValue`:
/// `let total = try await store.dispatch(Checkout(coupon: nil)).value`.
public protocol LuaReturningSideEffect: ReturningSideEffect, LuaTypedWrapper where ReturnValue: Decodable {}

extension LuaReturningSideEffect {
    public func sideEffect(_ context: any AnySideEffectContext) async throws -> ReturnValue {
        throw unboundError(Self.luaItem)
    }
}

private func unboundError(_ item: String) -> PluginError {
    PluginError(.unbound, item: item, message: "a Lua item runs only in the store of a PluginHost that loaded its plugin")
}
