import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// The state the host tests run plugins on.
struct AppState: State, Codable, Equatable {
    var counter = 0
    var todos: [Todo] = []
}

struct Todo: Codable, Equatable, Sendable {
    var title: String
    var done = false
}

/// The shipped plugins, `Plugins/<name>` at the package root.
func shippedPlugin(_ name: String) -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Plugins").appendingPathComponent(name).path
}

/// A fresh, empty directory for one test, removed when it is done.
final class ScratchDirectory: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("moonblade-tests-\(UUID().uuidString)")

    init() {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Plugin folders written for one test, removed when it is done.
final class ScratchPlugins: Sendable {
    private let scratch = ScratchDirectory()

    /// Writes `<name>/plugin.lua` and returns the folder.
    func write(_ name: String, _ source: String) throws -> String {
        let folder = scratch.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        return folder.path
    }
}

/// An in-memory `storage` dependency, exposed as `ctx.deps.storage.read/write`.
final class MemoryStorage: Sendable {
    struct ReadRequest: Decodable { var key: String }
    struct WriteRequest: Decodable { var key: String; var value: [Todo] }

    let saved = Locked<[String: [Todo]]>([:])

    func expose(in dependencies: inout PluginDependencies) {
        dependencies.expose("storage", "read") { [self] (request: ReadRequest) async throws -> [Todo]? in
            saved.withLock { $0[request.key] }
        }
        dependencies.expose("storage", "write") { [self] (request: WriteRequest) async throws in
            saved.withLock { $0[request.key] = request.value }
        }
    }
}

/// Records every change listeners see.
final class ChangeRecorder: Sendable {
    let changes = Locked<[(old: AppState, new: AppState)]>([])

    func attach<D>(to store: Store<AppState, D>) {
        _ = store.addListener { [self] old, new in changes.withLock { $0.append((old, new)) } }
    }

    var count: Int { changes.withLock { $0.count } }
}

/// Waits for work running in other tasks until `condition` holds; fails the test after ~10 s
/// rather than spinning forever.
func waitUntil(
    _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for _ in 0..<10_000 where !condition() {
        try await Task.sleep(for: .milliseconds(1))
    }
    #expect(condition(), "timed out waiting", sourceLocation: sourceLocation)
}

/// Writes a plugin named `name` whose only field is the list `field = { <entries> }` (its
/// interceptors or observers).
func listPlugin(_ scratch: ScratchPlugins, _ name: String, _ field: String, _ entries: String) throws -> String {
    try scratch.write(name, """
        return {
          name = "\(name)",
          \(field) = {
        \(entries)
          },
        }
        """)
}
