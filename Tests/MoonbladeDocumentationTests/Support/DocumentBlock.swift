import Foundation

/// A fenced code block of a Markdown document, with the snippet marker that precedes it, if any.
struct DocumentBlock: CustomStringConvertible {
    var file: URL
    /// The line of the opening fence, 1-based.
    var line: Int
    /// The fence's info string: `swift`, `lua`, `sh`, … (empty when none is given).
    var language: String
    var code: String
    /// The name in a `<!-- snippet: NAME -->` line right before the fence (blank lines allowed between).
    var snippetName: String?

    var description: String { "\(relativePath(file)):\(line)" }

    /// Every fenced block of the document at `url`.
    static func blocks(in url: URL) throws -> [DocumentBlock] {
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [DocumentBlock] = []
        var pendingSnippet: String?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let name = snippetMarkerName(trimmed) {
                pendingSnippet = name
            } else if trimmed.hasPrefix("```") {
                let fence = String(trimmed.prefix { $0 == "`" })
                let language = String(trimmed.dropFirst(fence.count)).trimmingCharacters(in: .whitespaces)
                var body: [String] = []
                var end = index + 1
                while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix(fence) {
                    body.append(lines[end])
                    end += 1
                }
                blocks.append(
                    DocumentBlock(
                        file: url, line: index + 1, language: language, code: body.joined(separator: "\n"),
                        snippetName: pendingSnippet))
                pendingSnippet = nil
                index = end
            } else if !trimmed.isEmpty {
                pendingSnippet = nil
            }
            index += 1
        }
        return blocks
    }

    private static func snippetMarkerName(_ line: String) -> String? {
        guard line.hasPrefix("<!-- snippet:"), line.hasSuffix("-->") else { return nil }
        return line.dropFirst("<!-- snippet:".count).dropLast("-->".count).trimmingCharacters(in: .whitespaces)
    }
}
