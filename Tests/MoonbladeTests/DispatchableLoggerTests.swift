import Logging
import Moonblade
import Testing

/// A log handler that keeps every message, for asserting on what was logged.
struct CapturingLogHandler: LogHandler {
    let messages: Recorder<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append("\(event.level) \(event.message)")
    }
}

@Suite("DispatchableLogger")
struct DispatchableLoggerTests {
    @Test("logs every dispatched item except the blacklisted exact types")
    func blackList() async throws {
        let messages = Recorder<String>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let store = TestStore(interceptors: [
            DispatchableLogger.interceptor(blackList: [Append.self], logger: logger)
        ])
        store.dispatch(Increment(by: 2))
        store.dispatch(Append("quiet"))
        _ = try await store.dispatch(Square(value: 3)).value
        #expect(
            messages.values == [
                "info [Dispatchable]: \(String(reflecting: Increment(by: 2)))",
                "info [Dispatchable]: \(String(reflecting: Square(value: 3)))",
            ])
        #expect(store.state == TestState(count: 2, log: ["quiet"]))
    }

    @Test("logs what the rest of the chain handled: not an updater that throws or an item a later interceptor rejects")
    func logsOnceHandled() async throws {
        struct Refusal: Error {}
        let messages = Recorder<String>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let rejectAppends: StoreInterceptor = { _ in
            { next in
                { item in
                    if item is Append { throw Refusal() }
                    try next(item)
                }
            }
        }
        let store = TestStore(interceptors: [DispatchableLogger.interceptor(logger: logger), rejectAppends])
        await #expect(throws: Refusal.self) { try await store.dispatch(Append("refused")).value }
        await #expect(throws: TestError.self) { try await store.dispatch(FailingUpdater()).value }
        try await store.dispatch(Increment()).value
        #expect(messages.values == ["info [Dispatchable]: \(String(reflecting: Increment()))"])
    }

    @Test("logs at the level it is given")
    func level() {
        let messages = Recorder<String>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let store = TestStore(interceptors: [DispatchableLogger.interceptor(logger: logger, level: .debug)])
        store.dispatch(Increment())
        #expect(messages.values.map { $0.split(separator: " ")[0] } == ["debug"])
    }
}
