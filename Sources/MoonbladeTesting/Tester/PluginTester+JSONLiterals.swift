import Testing

/// Payloads written as literals (`["id": 7, "text": "tea"]`), read as a ``JSONValue``; each forwards to
/// the `Encodable` form of the same call.
extension PluginTester {
    /// Dispatches `name` with a payload written as a JSON literal and checks its change.
    public func dispatch(
        _ name: String, _ payload: JSONValue, sourceLocation: SourceLocation = #_sourceLocation,
        assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        await dispatch(name, payload as any Encodable & Sendable, sourceLocation: sourceLocation, assert: expected)
    }

    /// Dispatches `name`, which must fail, with a payload written as a JSON literal.
    @discardableResult
    public func dispatchExpectingError(
        _ name: String, _ payload: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (any Error)? {
        await dispatchExpectingError(name, payload as any Encodable & Sendable, sourceLocation: sourceLocation)
    }

    /// Waits for `name` with the payload written as a JSON literal and checks its change.
    public func receive(
        _ name: String, _ payload: JSONValue, timeout: Duration = PluginTester.defaultTimeout,
        sourceLocation: SourceLocation = #_sourceLocation, assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        await receive(
            name, payload as any Encodable & Sendable, timeout: timeout, sourceLocation: sourceLocation,
            assert: expected)
    }
}
