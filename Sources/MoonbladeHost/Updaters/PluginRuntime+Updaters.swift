import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Runs the Lua updater `item` on a draft of the resident state and returns the state it leaves,
    /// decoded from what changed.
    ///
    /// The updater may change the draft in place or return a new table. One transaction: if it raises,
    /// a limit stops it, or what it leaves is not an `S`, this throws, and both the store's state and
    /// its resident copy stay exactly as they were.
    ///
    /// - Parameter thread: the stack to run on when a Lua interceptor's `next` handed the updater on
    ///   from a Lua thread; the main thread's otherwise.
    func applyUpdater(_ item: String, to state: S, payload: PluginValue, on thread: LuaStack? = nil) throws(PluginError)
        -> S
    {
        // Updaters run on the thread draining the store, which owns the generation.
        let generation = store?.stateGeneration
        return try withLua { lua throws(PluginError) in
            let stack = thread ?? lua.stack
            let base = stack.top
            defer { stack.top = base }
            let function = try lua.code.function(of: item, isUpdater: true)
            let start = try residentVersion(of: state, generation: generation, lua, item: item, on: stack)
            let draft: LuaDraft
            do throws(LuaError) {
                draft = try lua.resident.beginDraft(onto: stack)
            } catch {
                throw lua.code.pluginError(error, item: item, on: stack)
            }
            do {
                try payload.push(onto: stack, encoder: lua.encoder)
                try stack.call(arguments: 2, results: 1, function: function)
            } catch {
                // Drafts the plugin kept become read-only, as after a success.
                try? lua.resident.abandonDraft(draft, on: stack)
                if let error = error as? LuaError { throw lua.code.pluginError(error, item: item, on: stack) }
                throw lua.code.valueError(error, item: item, root: "payload", on: stack)
            }
            let pending: LuaPendingState
            do throws(LuaError) {
                pending = try lua.resident.finishDraft(draft, resultAt: stack.type(at: -1) == .nil ? nil : -1, on: stack)
            } catch {
                throw lua.code.pluginError(error, item: item, on: stack)
            }
            let updated: S
            do {
                updated = try lua.resident.decode(S.self, of: pending, decoder: lua.decoder)
            } catch {
                var failure = lua.code.valueError(error, item: item, root: "state", on: stack)
                failure.kind = .invalidState
                failure.message = "left a state that is not a \(S.self): \(failure.message)"
                throw failure
            }
            // The store stores what this returns as the next generation: the resident copy follows.
            lua.previousVersion = start
            lua.resident.commit(pending, version: generation.map { $0 &+ 1 } ?? .max)
            return updated
        }
    }

    /// The resident version mirroring `state` (the store's state at `generation`): the one already
    /// there when Lua code made the state, else `state` pushed whole (Swift code changed it).
    func residentVersion(
        of state: S, generation: UInt64?, _ lua: LuaSide, item: String, on stack: LuaStack
    ) throws(PluginError) -> LuaStateVersion {
        if let generation, let current = lua.resident.current, current.version == generation { return current }
        do {
            return try lua.resident.replace(with: state, version: generation ?? .max, encoder: lua.encoder)
        } catch {
            throw lua.code.valueError(error, item: item, root: "state", on: stack)
        }
    }
}
