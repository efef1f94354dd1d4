import CLua
import LuaGuest

extension LuaStack {
    /// Compiles `source` (text only: binary chunks are refused) and pushes it as a function.
    ///
    /// - Parameters:
    ///   - source: the chunk's Lua text.
    ///   - chunkName: how messages name the chunk, e.g. `todo/plugin.lua`, so that errors
    ///     read `todo/plugin.lua:12: …`.
    public func load(_ source: String, chunkName: String) throws(LuaError) {
        var source = source
        let status = source.withUTF8 { bytes in
            luaL_loadbufferx(state, bytes.baseAddress, bytes.count, "@" + chunkName, "t")
        }
        guard status == LUA_OK else { throw popError(status: status) }
    }

    /// Calls the function below the top `arguments` values, in protected mode, with the guest
    /// limits armed, and leaves `results` values in their place (`nil` for all it returns).
    ///
    /// On failure the function and arguments are gone and nothing is pushed; the error carries the
    /// place it was raised at and a traceback.
    public func call(arguments: Int32 = 0, results: Int32? = 0) throws(LuaError) {
        let runtime = self.runtime
        let function = try protectedCall(arguments: arguments, results: results) { runtime.withGuestLimits(on: state, $0) }
        // Code that caught a limit error in a coroutine may finish before the hook stops it too.
        if let limitError = runtime.limitError() {
            top = function - 1
            throw limitError
        }
    }

    /// ``call(arguments:results:)`` for the host's own Lua, run while a VM or host is set up: the
    /// guest limits stay unarmed (boundary rule 4), so a host given a tight budget or memory limit for
    /// its plugins still starts.
    package func callAsHost(arguments: Int32 = 0, results: Int32? = 0) throws(LuaError) {
        _ = try protectedCall(arguments: arguments, results: results) { $0() }
    }

    /// `lua_pcall` of the function below the top `arguments` values with the message handler, run by
    /// `arming` (which arms the limits, or not); on failure the function and arguments are gone.
    /// Returns the index the function was at, where its results start.
    @inline(__always)
    private func protectedCall(
        arguments: Int32, results: Int32?, arming: (() -> Int32) -> Int32
    ) throws(LuaError) -> Int32 {
        let handlerIndex = top - arguments
        moonblade_push_message_handler(state)
        insert(at: handlerIndex)
        let status = arming { moonblade_pcall(state, arguments, results ?? moonblade_multret, handlerIndex) }
        remove(at: handlerIndex)
        guard status == LUA_OK else { throw popError(status: status) }
        return handlerIndex
    }

    /// Calls `function` with the top `arguments` values as its arguments; see ``call(arguments:results:)``.
    public func call(arguments: Int32 = 0, results: Int32? = 0, function: LuaReference) throws(LuaError) {
        try reserve(2)
        function.push(onto: self)
        insert(at: top - arguments)
        try call(arguments: arguments, results: results)
    }

    /// Pops the error a failed load, call or resume left on top and turns it into a `LuaError`.
    ///
    /// After a runtime error in a protected call, that value is the description table built by the
    /// message handler in `shim.h`; otherwise (syntax, memory) it is Lua's message string. When a
    /// limit stopped the call, the error is that limit's, whatever the value became on the way out
    /// (plugin code may have caught and replaced it before the count hook raised it again).
    func popError(status: Int32) -> LuaError {
        defer { pop() }
        let runtime = self.runtime
        let pendingSwiftError = runtime.pendingSwiftError
        runtime.pendingSwiftError = nil
        if status != LUA_ERRSYNTAX,
            let limitError = runtime.limitError(traceback: type(at: -1) == .table ? field("traceback", ofTableAt: -1) : nil)
        {
            return limitError
        }
        switch status {
        case LUA_ERRSYNTAX:
            let message = string(at: -1) ?? "syntax error"
            return LuaError(.syntax, message: message, location: LuaLocation(messagePrefix: message))
        case LUA_ERRMEM:
            let limit = runtime.limits.pointee.memory_limit
            let message = limit > 0 ? "memory limit of \(limit) bytes exceeded" : (string(at: -1) ?? "out of memory")
            return LuaError(.memory, message: message)
        case LUA_ERRERR:
            return LuaError(.runtime, message: "error while handling an error: \(string(at: -1) ?? "?")")
        default:
            guard type(at: -1) == .table else {
                return LuaError(.runtime, message: string(at: -1) ?? "(error object is not a string)")
            }
            let message = field("message", ofTableAt: -1) ?? "?"
            let traceback = field("traceback", ofTableAt: -1)
            let source = field("source", ofTableAt: -1)
            rawGet(table: -1, field: "line")
            let line = integer(at: -1)
            pop()
            // A message that names its place wins: it is where an error re-raised through Swift started,
            // or the caller that `error(message, 2)` blames.
            let location =
                LuaLocation(messagePrefix: message)
                ?? source.flatMap { source in line.map { LuaLocation(source: source, line: Int($0)) } }
            let underlying = pendingSwiftError.flatMap { $0.message == message ? $0.error : nil }
            return LuaError(.runtime, message: message, location: location, traceback: traceback, underlying: underlying)
        }
    }

    /// The string field `name` of the table at `index`, read raw.
    private func field(_ name: String, ofTableAt index: Int32) -> String? {
        defer { pop() }
        rawGet(table: index, field: name)
        return string(at: -1)
    }
}
