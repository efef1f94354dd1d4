import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// The repository's `Plugins/` folder.
let pluginsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Plugins").path

func plugin(_ name: String) -> String { "\(pluginsDirectory)/\(name)" }

/// A plugin frozen for the harness's own tests (`Fixtures/<name>`), so they do not change when the
/// shipped plugin does: `todo` is the shipped todo list before it learned to save on every change.
func fixturePlugin(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name).path
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
