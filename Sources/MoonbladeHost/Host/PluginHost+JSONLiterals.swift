/// Payloads written as literals: `host.dispatch("notes.insert", ["id": 7, "text": "tea"])` mixes value
/// types in one dictionary, which no single `Encodable` type holds; these overloads read it as a
/// ``JSONValue``. They behave exactly as the `Encodable` forms they forward to.
extension PluginHost {
    /// Dispatches the item `name` with a payload written as a JSON literal, as the `Encodable` form does.
    @discardableResult
    public func dispatch(
        _ name: String, _ payload: JSONValue, retries: Int = 0, delay: Duration = .zero
    ) throws(PluginError) -> DispatchHandle<Void> {
        try dispatch(name, payload as any Encodable & Sendable, retries: retries, delay: delay)
    }

    /// Dispatches the side effect `name` with a payload written as a JSON literal and decodes what it
    /// returns as `Result`.
    public func dispatch<Result: Decodable & Sendable>(
        _ name: String, _ payload: JSONValue, returning: Result.Type, retries: Int = 0, delay: Duration = .zero
    ) throws(PluginError) -> DispatchHandle<Result> {
        try dispatch(name, payload as any Encodable & Sendable, returning: returning, retries: retries, delay: delay)
    }

    /// Dispatches `name` with a payload written as a JSON literal and waits until everything it set off
    /// is done, as the `Encodable` form does.
    @discardableResult
    public func dispatchAndSettle(_ name: String, _ payload: JSONValue) async throws -> JSONValue? {
        try await dispatchAndSettle(name, payload as any Encodable & Sendable)
    }

    /// Posts `notification` with a payload written as a JSON literal.
    public func post(_ notification: String, payload: JSONValue) {
        post(notification, payload: payload as any Encodable & Sendable)
    }
}
