import ArgumentParser

/// How `--trace` prints spans: as an indented tree per top-level dispatch (`--trace`, `--trace tree`),
/// or as one JSON object per finished dispatch, for tools (`--trace json`).
enum TraceFormat: String, ExpressibleByArgument, CaseIterable {
    case tree
    case json

    /// `--trace` alone, or followed by a format, as ArgumentParser reads it: `--trace=FORMAT`. (An
    /// option with an optional value is not one ArgumentParser has.)
    static func normalize(_ words: [String]) -> [String] {
        var result: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            if word == "--" {
                return result + words[index...]
            }
            if word == "--trace" {
                let next = index + 1 < words.endIndex ? words[index + 1] : nil
                if let next, let format = TraceFormat(rawValue: next) {
                    result.append("--trace=\(format.rawValue)")
                    index += 2
                    continue
                }
                result.append("--trace=\(TraceFormat.tree.rawValue)")
            } else {
                result.append(word)
            }
            index += 1
        }
        return result
    }
}
