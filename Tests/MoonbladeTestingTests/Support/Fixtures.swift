import Foundation
import Moonblade
import MoonbladeHost
@_exported import MoonbladeTestSupport
import MoonbladeTesting
import Testing

struct CounterState: State, Codable, Equatable {
    var counter = 0
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
