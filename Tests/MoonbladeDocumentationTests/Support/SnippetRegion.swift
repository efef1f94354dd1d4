import Foundation

/// The code between `// snippet: NAME` and `// end snippet` in a Swift file a target builds: what a
/// document's block with the same name must show.
struct SnippetRegion {
    var name: String
    var file: URL
    /// The line of the `// snippet:` marker, 1-based.
    var line: Int
    var code: String

    /// Every region of the Swift file at `url`.
    static func regions(in url: URL) throws -> [SnippetRegion] {
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var regions: [SnippetRegion] = []
        var open: (name: String, line: Int, body: [String])?
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet:") {
                open = (String(trimmed.dropFirst("// snippet:".count)).trimmingCharacters(in: .whitespaces), index + 1, [])
            } else if trimmed == "// end snippet", let region = open {
                regions.append(
                    SnippetRegion(
                        name: region.name, file: url, line: region.line, code: region.body.joined(separator: "\n")))
                open = nil
            } else {
                open?.body.append(line)
            }
        }
        return regions
    }
}

/// `code` with its outer blank lines, trailing spaces and common indentation taken away, so a region
/// indented inside a function compares equal to the document's block.
func normalized(_ code: String) -> String {
    var lines = code.components(separatedBy: "\n").map { line in
        String(line.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
    while lines.first?.isEmpty == true { lines.removeFirst() }
    while lines.last?.isEmpty == true { lines.removeLast() }
    let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return lines.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }.joined(separator: "\n")
}
