import Moonblade
import MoonbladeHost

/// A stand-in for an exposed dependency that answers with a test's closure and records every call.
///
/// ```swift
/// var dependencies = PluginDependencies()
/// let reads = dependencies.stub("storage", "read") { (request: ReadRequest) in [Todo(title: "milk")] }
/// // … run the plugin …
/// #expect(reads.calls == [ReadRequest(key: "todos")])
/// ```
public final class DependencyStub<Arguments: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees, unlike `Mutex`).
    private let lock = Lock()
    private var recorded: [Arguments] = []

    init() {}

    /// The arguments of every call so far, oldest first.
    public var calls: [Arguments] { lock.withLock { recorded } }

    func record(_ arguments: Arguments) {
        lock.withLock { recorded.append(arguments) }
    }
}

extension PluginDependencies {
    /// Exposes `body` as `ctx.deps.<group>.<name>(arguments)` (replacing what was exposed under that
    /// name) and returns the stub that records its calls. `body` may be synchronous or `async`.
    @discardableResult
    public mutating func stub<Arguments: Decodable & Sendable, Result: Encodable & Sendable>(
        _ group: String, _ name: String, _ body: @escaping @Sendable (Arguments) async throws -> Result
    ) -> DependencyStub<Arguments> {
        let stub = DependencyStub<Arguments>()
        expose(group, name) { (arguments: Arguments) in
            stub.record(arguments)
            return try await body(arguments)
        }
        return stub
    }

    /// Exposes `body` as `ctx.deps.<group>.<name>(arguments)`, returning nothing to Lua, and returns
    /// the stub that records its calls.
    @discardableResult
    public mutating func stub<Arguments: Decodable & Sendable>(
        _ group: String, _ name: String, _ body: @escaping @Sendable (Arguments) async throws -> Void = { _ in }
    ) -> DependencyStub<Arguments> {
        let stub = DependencyStub<Arguments>()
        expose(group, name) { (arguments: Arguments) in
            stub.record(arguments)
            try await body(arguments)
        }
        return stub
    }
}
