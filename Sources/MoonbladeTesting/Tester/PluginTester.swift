import Moonblade
import MoonbladeHost
import Testing

/// Tests plugins from Swift exhaustively, in the manner of TCA's `TestStore`.
///
/// Every dispatch states the change it expects; items that side effects dispatch must be received
/// and asserted, in order; and the test ends with no side effect still running. Any difference is a
/// test failure at the line of the call, with a diff of the expected and actual state.
///
/// ```swift
/// var dependencies = PluginDependencies()
/// dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk", done: false)] }
/// let tester = try PluginTester(plugins: ["Plugins/todo"], initialState: TodoState(), dependencies: dependencies)
/// await tester.dispatch("todo.add", ["title": "eggs"]) { $0.todos = [Todo(title: "eggs", done: false)] }
/// await tester.dispatch("todo.load")
/// await tester.receive("todo.replace") { $0.todos = [Todo(title: "milk", done: false)] }
/// await tester.finish()
/// ```
///
/// Failures are recorded with Swift Testing's `Issue.record`. Items are told apart by name: while a
/// `dispatch` is starting its item, a side effect dispatching an item of the same name at that very
/// moment may be taken for it.
public final class PluginTester<S: State & Codable & Equatable>: Sendable {
    /// The host under test.
    public let host: PluginHost<S>
    let log: ItemLog<S>
    private let createdAt: SourceLocation

    /// Loads the plugins in `directories` on a fresh store that starts from `initialState`.
    ///
    /// - Parameters:
    ///   - directories: the plugin folders, in load order.
    ///   - initialState: the state the store starts from.
    ///   - dependencies: what side effects reach as `ctx.deps`; use `stub` to stand in for them.
    ///   - configuration: the host's limits and settings (the defaults of a host), to test a plugin
    ///     under the limits it runs with.
    ///   - sourceLocation: where failures found only when the tester is released are reported.
    /// - Throws: a `PluginError` when the VM cannot start or a plugin does not load.
    public init(
        plugins directories: [String],
        initialState: S,
        dependencies: PluginDependencies = PluginDependencies(),
        configuration: PluginHost<S>.Configuration = PluginHost<S>.Configuration(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let log = ItemLog<S>()
        let host = try PluginHost<S>(
            plugins: directories, initialState: initialState, dependencies: dependencies,
            interceptors: [log.recorder], innerInterceptors: [log.sideEffectTracker],
            configuration: configuration)
        if let failure = host.loadErrors.first { throw failure }
        self.host = host
        self.log = log
        createdAt = sourceLocation
    }

    /// How long `receive` and `finish` wait at most while the store is still busy, by default.
    ///
    /// They wait for what the store does, not for a time: `receive` ends when its item arrives or
    /// when the store is idle without it (no side effect running, nothing queued: nothing more can
    /// arrive), `finish` when the store is idle. A slow machine makes them slower, never wrong. This
    /// bound only ends a wait on a side effect that never ends (hung on a dependency in a host with
    /// no side effect time limit; the host's limit, 30 s by default, ends the others sooner).
    public static var defaultTimeout: Duration { .seconds(300) }

    /// The store's current state.
    public var state: S { host.state }

    /// The names of the items side effects dispatched that no `receive(_:_:timeout:sourceLocation:assert:)`
    /// has asserted yet, oldest first.
    public var receivedItems: [String] { log.pending.map { name(of: $0.item) } }

    /// How strictly changes, received items and running side effects are checked; `.on` by default.
    public var exhaustivity: Exhaustivity {
        get { log.exhaustivity }
        set { log.exhaustivity = newValue }
    }

    deinit {
        guard !log.isFinished else { return }
        for failure in log.endOfTestFailures(naming: name(of:)) {
            Issue.record(Comment(rawValue: failure), sourceLocation: createdAt)
        }
    }

    /// The plugin item name of `item`, or its Swift type for an item Lua does not know.
    func name(of item: any Dispatchable) -> String {
        host.itemName(of: item) ?? String(describing: type(of: item))
    }
}

// MARK: - Dispatching and receiving

extension PluginTester {
    /// Dispatches the item `name` with `payload` and checks the change it makes.
    ///
    /// An updater is applied before this returns. A side effect is started and left running: what it
    /// dispatches is checked with `receive(_:_:timeout:sourceLocation:assert:)`, and it must end by
    /// ``finish(timeout:sourceLocation:)``.
    ///
    /// - Parameters:
    ///   - name: the item, `plugin.item`.
    ///   - payload: its payload; its fields become a Lua table.
    ///   - sourceLocation: where a failure is reported.
    ///   - expected: changes a copy of the state before the item into the state expected after it;
    ///     omit it when no change is expected. A difference is a failure with a diff.
    public func dispatch(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        switch await start(name, payload, sourceLocation: sourceLocation) {
        case .success(let record): check(record, named: name, expected, sourceLocation: sourceLocation)
        case .failure(let error): fail("dispatching \(name) failed: \(error)", at: sourceLocation)
        case nil: break
        }
    }

    /// Dispatches the item `name`, which must fail, and returns its error; the state must not change.
    @discardableResult
    public func dispatchExpectingError(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (any Error)? {
        switch await start(name, payload, sourceLocation: sourceLocation) {
        case .success(let record):
            fail("dispatching \(name) was expected to fail, but it succeeded", at: sourceLocation)
            check(record, named: name, nil, sourceLocation: sourceLocation)
            return nil
        case .failure(let error):
            return error
        case nil:
            return nil
        }
    }

    /// Waits for the next item a side effect dispatched, which must be `name`, and checks its change.
    ///
    /// - Parameters:
    ///   - name: the item expected, `plugin.item`.
    ///   - payload: when given, the item's payload must equal it, compared as JSON (a Lua item's
    ///     payload as Lua dispatched it: a sequence is an array, other tables objects).
    ///   - timeout: how long to wait at most while side effects are still running; a receive fails
    ///     at once when no side effect is running and nothing is queued, as nothing more can arrive.
    ///   - sourceLocation: where a failure is reported.
    ///   - expected: as in `dispatch(_:_:sourceLocation:assert:)`.
    public func receive(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil, timeout: Duration = PluginTester.defaultTimeout,
        sourceLocation: SourceLocation = #_sourceLocation,
        assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        let exhaustive = exhaustivity == .on
        let outcome = await waitUntil(
            { exhaustive ? !self.log.pending.isEmpty : self.log.pending.contains { self.name(of: $0.item) == name } },
            orIdle: host.store, guardTime: timeout)
        switch outcome {
        case .held:
            break
        case .idle:
            fail(
                "expected to receive \(name), but nothing more can arrive: no side effect is running and no item is queued",
                at: sourceLocation)
            return
        case .timedOut:
            let running = log.running.map(name(of:))
            let stillRunning = running.isEmpty ? "" : " (still running: \(running.joined(separator: ", ")))"
            fail("expected to receive \(name), but nothing was received within \(timeout)\(stillRunning)", at: sourceLocation)
            return
        }
        let record = log.take(skipping: true) { exhaustive || self.name(of: $0.item) == name }!
        let receivedName = self.name(of: record.item)
        guard receivedName == name else {
            fail("expected to receive \(name), but received \(receivedName)", at: sourceLocation)
            return
        }
        if let failure = record.failure {
            fail("received \(name), but it failed: \(failure)", at: sourceLocation)
            return
        }
        if let payload {
            let wanted: JSONValue
            do { wanted = try JSONValue(encoding: payload) } catch {
                fail("the expected payload of \(name) has no JSON form: \(error)", at: sourceLocation)
                return
            }
            // A Lua item's payload as Lua passed it; a Swift item (one a plugin dispatched by a registered
            // name) as its own fields encode.
            let received = host.payload(of: record.item) ?? (record.item as? any Encodable).flatMap { try? JSONValue(encoding: $0) }
            if !(received.map { Self.isLuaPayload($0, matching: wanted) } ?? false) {
                let shown = received.map { "with payload \($0.jsonString())" } ?? "with a payload that has no JSON form"
                fail("received \(name) \(shown), expected \(wanted.jsonString())", at: sourceLocation)
                return
            }
        }
        check(record, named: name, expected, sourceLocation: sourceLocation)
    }

    /// Whether `received`, a Lua payload as JSON, is `wanted`: an empty Lua table has no JSON kind of
    /// its own, so it is both `[]` and `{}`.
    private static func isLuaPayload(_ received: JSONValue, matching wanted: JSONValue) -> Bool {
        switch (received, wanted) {
        case (.array(let items), .array(let expected)):
            return items.count == expected.count && zip(items, expected).allSatisfy { isLuaPayload($0, matching: $1) }
        case (.object(let members), .object(let expected)):
            return members.count == expected.count
                && members.allSatisfy { key, value in expected[key].map { isLuaPayload(value, matching: $0) } ?? false }
        case (.array(let items), .object(let expected)):
            return items.isEmpty && expected.isEmpty
        default:
            return received == wanted
        }
    }

    /// Ends the test: waits for the store to be idle (every side effect finished, every item handled,
    /// on any thread), for at most `timeout` while it is busy, then (when exhaustive) fails for any side effect still running,
    /// any item received but not asserted, and any side effect that failed.
    public func finish(timeout: Duration = PluginTester.defaultTimeout, sourceLocation: SourceLocation = #_sourceLocation) async {
        _ = await waitUntilIdle(host.store, guardTime: timeout)
        log.isFinished = true
        for failure in log.endOfTestFailures(naming: name(of:)) {
            fail(failure, at: sourceLocation)
        }
    }

    /// Checks what was left over from the previous step, then dispatches `name` and returns the record
    /// of its change, its error, or nil when it could not start (already reported).
    private func start(
        _ name: String, _ payload: (any Encodable & Sendable)?, sourceLocation: SourceLocation
    ) async -> Result<ItemRecord<S>, any Error>? {
        for failure in log.leftoverFailures(naming: self.name(of:)) {
            fail(failure, at: sourceLocation)
        }
        let handle: DispatchHandle<Void>
        do {
            handle = try host.dispatch(name, payload)
        } catch {
            return .failure(error)
        }
        // An updater's record is there once its handle is done (its error is in the record too); a
        // side effect's once it has been started, or refused by an interceptor.
        if host.kind(of: name)?.isUpdater == true {
            try? await handle.value
        }
        let isDirect: @Sendable (ItemRecord<S>) -> Bool = { self.name(of: $0.item) == name }
        guard
            await waitUntil({ self.log.pending.contains(where: isDirect) }, orIdle: host.store, guardTime: Self.defaultTimeout)
                == .held
        else {
            fail("\(name) was dispatched but never reached the store", at: sourceLocation)
            return nil
        }
        let record = log.take(where: isDirect)!
        if let failure = record.failure { return .failure(failure) }
        return .success(record)
    }
}
