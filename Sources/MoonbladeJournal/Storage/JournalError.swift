/// A journal that cannot be opened, read or written: names the file and what is wrong with it.
public struct JournalError: Error, CustomStringConvertible, Sendable {
    /// The journal's file (`:memory:` for one kept in memory).
    public var file: String
    /// What is wrong, for people: `entry 12: its patch does not fit the state: …`.
    public var problem: String

    /// An error in the journal at `file`; `problem` says what is wrong, for people.
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }

    public var description: String { "journal \(file): \(problem)" }
}
