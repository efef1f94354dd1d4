import Foundation
import Moonblade
import MoonbladeHost
@_exported import MoonbladeTestSupport
import Testing

/// The state the host tests run plugins on.
struct AppState: State, Codable, Equatable {
    var counter = 0
    var todos: [Todo] = []
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

/// Writes a plugin named `name` whose only field is the list `field = { <entries> }` (its
/// interceptors or observers).
func listPlugin(_ scratch: ScratchPlugins, _ name: String, _ field: String, _ entries: String) throws -> String {
    try scratch.write(
        name,
        """
        return {
          name = "\(name)",
          \(field) = {
        \(entries)
          },
        }
        """)
}
