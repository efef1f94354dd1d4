/// The one rule for the names in `plugin.item`, which plugins are checked against when they load and
/// the command line and the repl's lines tell names from payloads by.
package enum ItemName {
    /// Whether `part` can be the item side of `plugin.item`: non-empty, with no dot, whitespace, quote,
    /// bracket, brace, comma or colon, so that no JSON text is a name and a name has one dot.
    package static func isItem(_ part: Substring) -> Bool {
        !part.isEmpty && !part.contains { $0 == "." || $0.isWhitespace || "\"{}[],:".contains($0) }
    }

    /// Whether `part` can be the plugin side of `plugin.item`: an item part that does not start as a
    /// number does (a digit or `-`), so `1.5` and `-1.5` stay numbers.
    package static func isPlugin(_ part: Substring) -> Bool {
        guard let first = part.first else { return false }
        return isItem(part) && !first.isNumber && first != "-"
    }

    /// What a part that is not a name should be, for error messages.
    package static let rule = "a non-empty name without dots, spaces, quotes, brackets, braces, commas or colons"
}
