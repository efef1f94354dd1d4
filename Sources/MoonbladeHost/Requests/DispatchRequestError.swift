import Foundation

/// A dispatch request that cannot be understood, in one line.
package struct DispatchRequestError: Error, CustomStringConvertible {
    package var message: String
    /// The word that should have been an item name, for a hint naming the loaded items.
    package var notAName: String?
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }

    package static func notAName(_ word: String) -> Self {
        var error = Self(message: "expected an item name (plugin.item), found \"\(word)\"")
        error.notAName = word
        return error
    }

    /// This error with what can be dispatched: the closest of `items` to the word, or a few of them.
    package func naming(_ items: [String]) -> Self {
        guard let word = notAName, !items.isEmpty else { return self }
        var error = self
        let hint = NameSuggestion.closest(to: word, among: items).map { "did you mean \($0)?" }
        error.message += "; " + (hint ?? "items: " + items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : ""))
        return error
    }
}
