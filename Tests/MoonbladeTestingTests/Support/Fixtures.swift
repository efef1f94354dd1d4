import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeTesting
import Testing

/// The repository's `Plugins/` folder.
let pluginsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Plugins").path

func plugin(_ name: String) -> String { "\(pluginsDirectory)/\(name)" }

/// Polls `condition` until it holds or `timeout` passes (as long as the tester's default, for the same
/// reason); returns whether it held.
func eventually(timeout: Duration = PluginTester<TodoState>.defaultTimeout, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

struct CounterState: State, Codable, Equatable {
    var counter = 0
}

struct Todo: Codable, Equatable, Sendable {
    var title: String
    var done = false
}

struct TodoState: State, Codable, Equatable {
    var todos: [Todo] = []
}

struct ReadRequest: Codable, Equatable, Sendable {
    var key: String
}

struct WriteRequest: Codable, Equatable, Sendable {
    var key: String
    var value: [Todo]
}

/// The text of everything an issue says.
func message(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// A gate a stubbed dependency waits at until the test opens it.
final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func wait() async {
        for await _ in stream { return }
    }

    func open() {
        continuation.finish()
    }
}
