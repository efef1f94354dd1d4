/// JSON text that is not one JSON value ``JSONValue`` can hold exactly, with where it went wrong.
///
/// `description` reads `line 3, column 12 (at items[1].price): the integer 12345678901234567890 does
/// not fit in 64 bits`: the place in the text, and the path in the document when inside a container.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `duplicate key "a"`.
    public var reason: String
    /// The line of the text where it went wrong, from 1.
    public var line: Int
    /// The column (in bytes) of that line, from 1.
    public var column: Int
    /// The path of the value being read, as Moonblade's errors write it (`items[1].price`); empty at
    /// the top level.
    public var path: String

    public var description: String {
        "line \(line), column \(column)\(path.isEmpty ? "" : " (at \(path))"): \(reason)"
    }
}
