import CLua

extension LuaStack {
    /// Pushes `message` as an error value to be raised (or handed to Lua code that raises it), and
    /// remembers `underlying` so that, if the error reaches the host unchanged, the host's `LuaError`
    /// carries the original Swift error.
    public func pushError(message: String, underlying: (any Error)?) {
        push(message)
        if let underlying {
            runtime.pendingSwiftError = (message, underlying)
        }
    }

    /// The innermost Lua line on this thread's call stack, skipping C (and Swift) frames such as
    /// `pcall`, and frames of the chunk named `skippedChunk` (host-provided Lua glue, say).
    public func callerLocation(skipping skippedChunk: String? = nil) -> LuaLocation? {
        callerLocation(skipping: skippedChunk.map { [$0] } ?? [])
    }

    /// The innermost Lua line on this thread's call stack outside the chunks named in `skippedChunks`.
    public func callerLocation(skipping skippedChunks: Set<String>) -> LuaLocation? {
        var frame = lua_Debug()
        var level: Int32 = 1  // level 0 is the running Swift function itself
        while lua_getstack(state, level, &frame) != 0 {
            lua_getinfo(state, "Sl", &frame)
            if frame.currentline > 0 {
                let source = frame.sourceName
                if !skippedChunks.contains(source) {
                    return LuaLocation(source: source, line: Int(frame.currentline))
                }
            }
            level += 1
        }
        return nil
    }

    /// A runtime error raised at the Lua line that called into Swift, past the Lua glue in
    /// `glueChunks`: its message starts with that place (`todo/plugin.lua:12: …`), and `underlying`
    /// rides along as its cause.
    package func placedError(
        _ message: String, skipping glueChunks: Set<String>, underlying: (any Error)? = nil
    ) -> LuaError {
        let location = callerLocation(skipping: glueChunks)
        return LuaError(
            .runtime, message: location.map { "\($0): \(message)" } ?? message, location: location,
            underlying: underlying)
    }

    /// Where the Lua function at `index` is defined, or nil for a C or Swift function.
    public func definitionLocation(ofFunctionAt index: Int32) -> LuaLocation? {
        var frame = lua_Debug()
        pushCopy(of: index)
        lua_getinfo(state, ">S", &frame)  // pops the function
        guard frame.linedefined > 0 else { return nil }
        return LuaLocation(source: frame.sourceName, line: Int(frame.linedefined))
    }
}

extension lua_Debug {
    /// The chunk name as Lua prints it in messages (`short_src`).
    fileprivate var sourceName: String {
        var shortSource = short_src
        return withUnsafeBytes(of: &shortSource) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
