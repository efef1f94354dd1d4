extension PluginHost {
    /// Dispatches the Lua updater or side effect `name` with `payload` and waits until it is done, and
    /// so is everything it set off (an observer rule's save, say): what a command line or a spec case
    /// wants before it looks at the state.
    ///
    /// - Returns: what the side effect returned, or nil for an updater or a side effect that returns
    ///   nothing (or nil).
    /// - Throws: ``PluginError/Kind/unknownItem`` when no Lua item has that name, or the item's error.
    @discardableResult
    public func dispatchAndSettle(_ name: String, _ payload: (any Encodable & Sendable)? = nil) async throws
        -> JSONValue?
    {
        let result: JSONValue?
        switch runtime.kind(of: name) {
        case .luaUpdater:
            try await dispatch(name, payload).value
            result = nil
        case .luaSideEffect:
            let value = try await dispatch(name, payload, returning: JSONValue.self).value
            // `Optional.none` spelled out: a plain `nil` here would be the JSON null literal.
            result = value == .null ? Optional.none : value
        case .swift, nil:
            throw unknownItemError(name, among: runtime.catalog.itemNames)
        }
        await settle()
        return result
    }

    /// Waits until the store is idle (no dispatch queued, no side effect running) and every failure of
    /// an observer rule's reaction has been logged: what a command line wants before it exits.
    public func settle() async {
        await store.waitUntilIdle()
        await runtime.pendingReports.waitUntilNone()
    }
}
