import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Runs the Lua updater `item` on a copy of `state` and returns what it leaves, decoded.
    ///
    /// The updater may change the table in place or return a new one. If it raises, or what it leaves
    /// is not an `S`, this throws and the store keeps its state.
    ///
    /// - Parameter thread: the stack to run on when a Lua interceptor's `next` handed the updater on
    ///   from a Lua thread; the main thread's otherwise.
    func applyUpdater(_ item: String, to state: S, payload: PluginValue, on thread: LuaStack? = nil) throws(PluginError)
        -> S
    {
        try withLua { lua throws(PluginError) in
            let stack = thread ?? lua.stack
            let base = stack.top
            defer { stack.top = base }
            let function = try lua.code.function(of: item, isUpdater: true)
            do {
                try instruments.span("state to lua") { try lua.encoder.push(state, onto: stack) }
            } catch {
                throw lua.code.valueError(error, item: item, root: "state", on: stack)
            }
            do {
                stack.pushCopy(of: base + 1)
                try payload.push(onto: stack, encoder: lua.encoder)
                try instruments.span("lua") { () throws(LuaError) in
                    try stack.call(arguments: 2, results: 1, function: function)
                }
            } catch let error as LuaError {
                throw lua.code.pluginError(error, item: item, on: stack)
            } catch {
                throw lua.code.valueError(error, item: item, root: "payload", on: stack)
            }
            let resultIndex = stack.type(at: -1) == .nil ? base + 1 : stack.top
            do {
                return try instruments.span("state from lua") { try lua.decoder.decode(S.self, from: stack, at: resultIndex) }
            } catch {
                var failure = lua.code.valueError(error, item: item, root: "state", on: stack)
                failure.kind = .invalidState
                failure.message = "left a state that is not a \(S.self): \(failure.message)"
                throw failure
            }
        }
    }
}
