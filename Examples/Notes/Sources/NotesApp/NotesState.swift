import Moonblade

/// The example app's state: a typed Swift struct the Lua plugin reads and changes as a table.
public struct NotesState: State, Codable, Equatable {
    public var notes: [Note] = []

    public init() {}

    public init(notes: [Note]) {
        self.notes = notes
    }
}

/// One note: its number from the app's ``NoteNumbers`` and its text.
public struct Note: Codable, Equatable, Sendable {
    public var id: Int
    public var text: String

    public init(id: Int, text: String) {
        self.id = id
        self.text = text
    }
}
