import Tracing

extension HostEvents {
    /// Runs `body`, the items it dispatches shown on the stream as an HTTP request's.
    static func dispatchingOverHTTP<Result>(_ body: () throws -> Result) rethrows -> Result {
        try InstrumentationContext.withValue(context(dispatchingFrom: .http), operation: body)
    }

    /// Runs `body`, the items it dispatches shown on the stream as lines of the command line's input.
    package static func dispatchingFromCommandLine<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await InstrumentationContext.withValue(context(dispatchingFrom: .commandLine), operation: body)
    }

    /// The current context, telling the host's items who dispatches them.
    private static func context(dispatchingFrom origin: DispatchRecord.Origin) -> InstrumentationContext {
        var context = InstrumentationContext.current ?? .topLevel
        context.dispatchOrigin = origin
        return context
    }
}
