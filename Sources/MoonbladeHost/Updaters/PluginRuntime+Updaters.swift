import Moonblade
import MoonbladeLua
import MoonbladeResidentState

extension PluginRuntime {
    /// Runs the Lua updater `item` on a draft of the resident state and returns the state it leaves,
    /// decoded from what changed.
    ///
    /// The updater may change the draft in place or return a new table. One transaction: if it raises,
    /// a limit stops it, or what it leaves is not an `S`, this throws, and both the store's state and
    /// its resident copy stay exactly as they were.
    ///
    /// - Parameters:
    ///   - resolved: `item` as the catalog resolved it, if the caller looked it up: its function and
    ///     plugin are then taken from there, unless a reload installed other code since.
    ///   - thread: the stack to run on when a Lua interceptor's `next` handed the updater on from a
    ///     Lua thread; the main thread's otherwise.
    ///   - outsideStore: whether `state` is not the store's (a replay): the resident copy, kept for
    ///     the store's state version, must not stand in for it.
    func applyUpdater(
        _ item: String, resolved: ResolvedLuaItem? = nil, to state: S, payload: PluginValue, on thread: LuaStack? = nil,
        outsideStore: Bool = false
    ) throws(PluginError) -> S {
        try withLua { lua throws(PluginError) in
            // Updaters run on the thread draining the store, which owns the state version.
            let stateVersion = outsideStore ? nil : lua.stateVersions?.value
            let stack = thread ?? lua.stack
            let base = stack.top
            defer { stack.top = base }
            let (function, plugin) = try lua.code.function(of: item, resolved: resolved, isUpdater: true)
            let start: LuaStateVersion
            do {
                start = try instruments.span("state to lua") { try lua.residentVersion(of: state, stateVersion: stateVersion) }
            } catch {
                throw lua.code.valueError(error, item: item, root: "state", on: stack)
            }
            let pending: LuaPendingState
            do {
                pending = try instruments.span("lua") {
                    try lua.vm.withLimits(limits(of: plugin)) {
                        try lua.resident.apply(function, on: stack) { stack in
                            try payload.push(onto: stack, encoder: lua.encoder)
                            return 1
                        }
                    }
                }
            } catch let error as LuaError {
                throw lua.code.pluginError(error, item: item, on: stack)
            } catch let error as LuaNewStateError {
                var failure = lua.code.pluginError(error.error, item: item, on: stack)
                failure.kind = .invalidState
                throw failure
            } catch let error as LuaStateReturnError {
                // A state that is a table stays one: a returned number or string is a slip, not a new state.
                throw PluginError(
                    .invalidState, plugin: plugin, item: item,
                    message: "returned a \(error.returned); an updater changes the state table in place or returns a new table",
                    location: lua.code.definition(of: item, on: stack))
            } catch {
                throw lua.code.valueError(error, item: item, root: "payload", on: stack)
            }
            var updated: S
            if pending.isUnchanged {
                updated = state
            } else {
                do {
                    updated = try instruments.span("state from lua") {
                        try lua.resident.decode(S.self, of: pending, decoder: lua.decoder)
                    }
                } catch {
                    var failure = lua.code.valueError(error, item: item, root: "state", on: stack)
                    failure.kind = .invalidState
                    failure.message = "left a state that is not a \(S.self): \(failure.message)"
                    throw failure
                }
                // A dynamic state keeps its kind at its root (a metadata compare: free for other states).
                if S.self == JSONValue.self {
                    let previous = state as! JSONValue
                    let left = updated as! JSONValue
                    guard let kept = left.keepingRootKind(of: previous) else {
                        throw PluginError(
                            .invalidState, plugin: plugin, item: item, message: JSONValue.rootKindChange(from: previous),
                            location: lua.code.definition(of: item, on: stack))
                    }
                    if kept != left {
                        // The empty root Lua keeps is marked so: `ctx.state()` shows what the store holds.
                        // (Without stack room it stays unmarked; the store's state is right either way.)
                        try? lua.resident.markRoot(of: pending, as: kept == .object([:]) ? .object : .array)
                        updated = kept as! S
                    }
                }
            }
            // The store stores what this returns as the next version: the resident copy follows.
            var retired = lua.previousVersion
            lua.previousVersion = start
            lua.resident.recycle(&retired)
            lua.resident.commit(pending, version: stateVersion.map { $0 &+ 1 } ?? .max)
            return updated
        }
    }

}
