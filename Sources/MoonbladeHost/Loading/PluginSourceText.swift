import Foundation

/// The Lua text of a plugin's file (or spec): UTF-8, a byte order mark left out, or why it cannot be had.
///
/// A file saved in another encoding (Latin-1, say) is readable but not text the host takes: the error
/// says so and names the first line that is not UTF-8, rather than claiming the file cannot be read.
package enum PluginSourceText {
    /// Why a file's text cannot be had.
    package enum Problem: Error, Equatable {
        /// The file cannot be opened or read.
        case unreadable
        /// The file's bytes are not UTF-8 from `line` on.
        case notUTF8(line: Int)

        /// The problem in words, naming the file `name` (`todo/plugin.lua`).
        package func message(file name: String, path: String) -> String {
            switch self {
            case .unreadable: "cannot read \(path)"
            case .notUTF8: "\(name) is not UTF-8 text; save it as UTF-8"
            }
        }

        /// The line the problem is at, if it has one.
        package var line: Int? {
            if case .notUTF8(let line) = self { line } else { nil }
        }
    }

    /// The text of the file at `path`.
    package static func read(_ path: String) -> Result<String, Problem> {
        guard var data = FileManager.default.contents(atPath: path) else { return .failure(.unreadable) }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        if let text = String(data: data, encoding: .utf8) { return .success(text) }
        // A line break byte is never part of a longer UTF-8 sequence: lines can be checked one by one.
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let line = lines.firstIndex { String(data: Data($0), encoding: .utf8) == nil } ?? 0
        return .failure(.notUTF8(line: line + 1))
    }
}
