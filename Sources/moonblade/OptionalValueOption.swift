/// An option whose value may be left out (`--trace`, `--trace json`; `--devtools`, `--devtools 9000`),
/// written the way ArgumentParser reads it: `--option=VALUE`, the default when the next word is no
/// value of it. (An option with an optional value is not one ArgumentParser has.)
struct OptionalValueOption: Sendable {
    let name: String
    let defaultValue: String
    /// Whether a word is a value of the option.
    let accepts: @Sendable (String) -> Bool

    /// `words` with each `--name [VALUE]` made `--name=VALUE`; the words after `--` are left as they are.
    func normalize(_ words: [String]) -> [String] {
        var result: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            if word == "--" {
                return result + words[index...]
            }
            if word == name {
                let next = index + 1 < words.endIndex ? words[index + 1] : nil
                if let next, accepts(next) {
                    result.append("\(name)=\(next)")
                    index += 2
                    continue
                }
                result.append("\(name)=\(defaultValue)")
            } else {
                result.append(word)
            }
            index += 1
        }
        return result
    }
}
