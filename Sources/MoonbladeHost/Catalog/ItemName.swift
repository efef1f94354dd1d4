/// The one rule for the names in `plugin.item`, which plugins are checked against when they load,
/// Swift items when they are registered, and the command line and the repl's lines tell names from
/// payloads by.
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

    /// Whether `name` is a whole item name: a plugin part and an item part joined by one dot.
    package static func isName(_ name: Substring) -> Bool {
        problem(with: name) == nil
    }

    /// What is wrong with `name` as a whole item name `plugin.item`, in the words the loader uses for
    /// its parts; nil when it is one.
    package static func problem(with name: Substring) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "\"\(name)\" is no item name: an item is named plugin.item, with one dot" }
        guard isPlugin(parts[0]) else { return "\"\(name)\" is no item name: a plugin has \(pluginRule)" }
        guard isItem(parts[1]) else { return notAnItem("\"\(name)\"") }
        return nil
    }

    /// The message for `shown`, which is no item part: `updaters["a b"] is no item name: an item has …`.
    package static func notAnItem(_ shown: String) -> String {
        "\(shown) is no item name: an item has \(rule)"
    }

    /// What a part that is not a name should be, for error messages.
    package static let rule = "a non-empty name without dots, spaces, quotes, brackets, braces, commas or colons"

    /// What a plugin part that is not a name should be, for error messages.
    package static let pluginRule = "\(rule), not starting with a digit or '-'"
}
