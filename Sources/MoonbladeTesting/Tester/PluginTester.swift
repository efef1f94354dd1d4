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
    ///   - dependencies: what side effects reach as `ctx.deps`; use `stub` to stand in for them.
    ///   - sourceLocation: where failures found only when the tester is released are reported.
    /// - Throws: a ``PluginError`` when the VM cannot start or a plugin does not load.
    public init(
        plugins directories: [String],
        initialState: S,
        dependencies: PluginDependencies = PluginDependencies(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let log = ItemLog<S>()
        let host = try PluginHost<S>(
            plugins: directories, initialState: initialState, dependencies: dependencies,
            interceptors: [log.interceptor])
        if let failure = host.loadErrors.first { throw failure }
        self.host = host
        self.log = log
        createdAt = sourceLocation
    }

    /// How long `receive` and `finish` wait by default. Waiting ends as soon as what is awaited
    /// happens, so only a failing test waits this long; it is generous because a loaded machine (or a
    /// sanitizer) can slow a side effect down by far more than a second.
    public static var defaultTimeout: Duration { .seconds(5) }

    /// The store's current state.
    public var state: S { host.state }

    /// The names of the items side effects dispatched that no ``receive(_:timeout:sourceLocation:assert:)``
    /// has asserted yet, oldest first.
    public var receivedItems: [String] { log.received.map(\.name) }

    /// How strictly changes, received items and running side effects are checked; `.on` by default.
    public var exhaustivity: Exhaustivity {
        get { log.exhaustivity }
        set { log.exhaustivity = newValue }
    }

    deinit {
        guard !log.isFinished else { return }
        for failure in log.endOfTestFailures(stillRunning: log.running) {
            Issue.record(Comment(rawValue: failure), sourceLocation: createdAt)
        }
    }
}

// MARK: - Dispatching and receiving

extension PluginTester {
    /// Dispatches the item `name` with `payload` and checks the change it makes.
    ///
    /// An updater is applied before this returns. A side effect is started and left running: what it
    /// dispatches is checked with ``receive(_:timeout:sourceLocation:assert:)``, and it must end by
    /// ``finish(timeout:sourceLocation:)``.
    ///
    /// - Parameters:
    ///   - expected: changes a copy of the state before the item into the state expected after it;
    ///     omit it when no change is expected. A difference is a failure with a diff.
    public func dispatch(
        _ name: String, _ payload: (any Encodable & Sendable)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        switch await start(name, payload, sourceLocation: sourceLocation) {
        case .success(let record): check(record, expected, sourceLocation: sourceLocation)
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
            check(record, nil, sourceLocation: sourceLocation)
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
    ///   - timeout: how long to wait for the item to arrive.
    ///   - expected: as in ``dispatch(_:_:sourceLocation:assert:)``.
    public func receive(
        _ name: String, timeout: Duration = PluginTester.defaultTimeout,
        sourceLocation: SourceLocation = #_sourceLocation,
        assert expected: ((inout S) throws -> Void)? = nil
    ) async {
        let exhaustive = exhaustivity == .on
        let arrived = await waitUntil(timeout: timeout) {
            exhaustive ? !self.log.received.isEmpty : self.log.received.contains { $0.name == name }
        }
        guard arrived else {
            let running = log.running.map { " (still running: \($0.joined(separator: ", ")))" } ?? ""
            fail("expected to receive \(name), but nothing was received within \(timeout)\(running)", at: sourceLocation)
            return
        }
        let record = log.takeReceived(named: exhaustive ? nil : name)!
        guard record.name == name else {
            fail("expected to receive \(name), but received \(record.name)", at: sourceLocation)
            return
        }
        check(record, expected, sourceLocation: sourceLocation)
    }

    /// Ends the test: waits up to `timeout` for running side effects, then (when exhaustive) fails
    /// for any still running, any item received but not asserted, and any side effect that failed.
    public func finish(timeout: Duration = PluginTester.defaultTimeout, sourceLocation: SourceLocation = #_sourceLocation) async {
        _ = await waitUntil(timeout: timeout) { self.log.running == nil }
        log.isFinished = true
        for failure in log.endOfTestFailures(stillRunning: log.running) {
            fail(failure, at: sourceLocation)
        }
    }

    /// Checks what was left over from the previous step, then dispatches `name` and returns the record
    /// of its change, its error, or nil when it could not start (already reported).
    private func start(
        _ name: String, _ payload: (any Encodable & Sendable)?, sourceLocation: SourceLocation
    ) async -> Result<ItemRecord<S>, any Error>? {
        for failure in log.leftoverFailures() {
            fail(failure, at: sourceLocation)
        }
        log.expectDirect(name)
        let handle: DispatchHandle<Void>
        do {
            handle = try host.dispatch(name, payload)
        } catch {
            log.expectDirect(nil)
            return .failure(error)
        }
        // An updater is done when its handle is; a side effect only has to have been started.
        let isUpdater = host.plugins.contains { $0.updaters.contains(name) }
        if isUpdater {
            do {
                try await handle.value
            } catch {
                log.expectDirect(nil)
                return .failure(error)
            }
        }
        guard await waitUntil(timeout: Self.defaultTimeout, { self.log.direct != nil }) else {
            log.expectDirect(nil)
            fail("\(name) was dispatched but never reached the store", at: sourceLocation)
            return nil
        }
        return .success(log.takeDirect()!)
    }
}
