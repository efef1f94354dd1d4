import Moonblade

// The state Katana's own suite tests its store with (KatanaTests/Mocks/States.swift): to-dos and users.

struct Todo: Equatable, Sendable {
    let title: String
    let id: String
}

struct User: Equatable, Sendable {
    let username: String
}

struct TodoState: Equatable, Sendable {
    var todos: [Todo] = []
}

struct UserState: Equatable, Sendable {
    var users: [User] = []
}

/// The whole state of the Katana suite's store.
struct AppState: State, Equatable {
    var todo = TodoState()
    var user = UserState()
}

/// The store every test of the Katana suite uses.
typealias KatanaStore = Store<AppState, TestDependenciesContainer>
