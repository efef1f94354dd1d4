import Foundation
import Testing

/// Why a spec case failed, and where.
public struct LuaSpecFailure: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong: for an assertion, both values.
    public var message: String
    /// The spec file the failure points at.
    public var file: String
    /// The line in ``file``.
    public var line: Int

    /// A failure with `message` at `file`:`line`.
    public init(message: String, file: String, line: Int) {
        self.message = message
        self.file = file
        self.line = line
    }

    /// `path:line: message`.
    public var description: String { "\(file):\(line): \(message)" }

    /// The failure's place as Swift Testing reports it.
    public var sourceLocation: SourceLocation {
        SourceLocation(
            fileID: "Plugins/\(URL(fileURLWithPath: file).lastPathComponent)", filePath: file, line: line, column: 1)
    }
}
