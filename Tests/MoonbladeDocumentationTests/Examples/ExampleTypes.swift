import MoonbladeHost

// The types the articles' examples use without showing them.

/// A to-do item, as the shipped todo plugin keeps them.
struct Todo: Codable, Equatable, Sendable {
    var title: String
    var done = false
}

/// What the todo plugin passes to `ctx.deps.storage.read`.
struct ReadRequest: Codable, Equatable, Sendable {
    var key: String
}

/// An app's own storage service, which the examples expose to Lua.
struct TodoStorage: Sendable {
    func read(_ key: String) async throws -> [Todo]? { nil }
}

/// What the todo plugin passes to `ctx.deps.storage.write`.
struct WriteRequest: Codable, Equatable, Sendable {
    var key: String
    var value: [Todo]
}

/// The state the testing examples run the todo plugin on.
struct TodoState: State, Codable, Equatable {
    var todos: [Todo] = []
}
