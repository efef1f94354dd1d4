import Foundation
import MoonbladeHost

/// One dispatch asked for on the command line or typed in: an item name and an optional JSON payload.
struct DispatchRequest: Equatable {
    var name: String
    var payload: JSONValue?

    /// A name and the payload's JSON text (nil or blank for no payload).
    init(name: String, json: String?) throws(DispatchRequestError) {
        guard !name.isEmpty, !name.contains(where: \.isWhitespace) else { throw .notAName(name) }
        self.name = name
        guard let json, !json.allSatisfy(\.isWhitespace) else { return }
        // Read as shown in an error, so its column counts in what is shown (without the space that
        // keeps a negative number from being an option: ``NegativePayloads``).
        let shown = json.trimmingCharacters(in: .whitespaces)
        do {
            payload = try JSONValue(json: shown)
        } catch {
            throw DispatchRequestError(
                message: "the payload of \(name) is not valid JSON (\(shown.count > 60 ? shown.prefix(60) + "…" : shown)): \(error)")
        }
    }

    /// A line `NAME` or `NAME JSON`; NAME must be `plugin.item` (any names, no JSON punctuation), so a
    /// line of garbage is not read as an item named by its first word.
    init(line: String) throws(DispatchRequestError) {
        let trimmed = line.drop(while: \.isWhitespace)
        let name = trimmed.prefix { !$0.isWhitespace }
        guard Self.isItemName(name) else { throw .notAName(String(name)) }
        try self.init(
            name: String(name), json: trimmed.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
    }
}

extension DispatchRequest {
    /// The requests in the words that follow `--dispatch` options: each item name, then its payload if
    /// the next word is not an item name itself. (ArgumentParser hands over the words of repeated
    /// `--dispatch NAME [JSON]` options as one list.)
    static func requests(from words: [String]) throws(DispatchRequestError) -> [DispatchRequest] {
        var requests: [DispatchRequest] = []
        var index = words.startIndex
        while index < words.endIndex {
            let name = words[index]
            guard isItemName(name[...]) else { throw .notAName(name) }
            let payload =
                words.indices.contains(index + 1) && !isItemName(words[index + 1][...])
                ? words[index + 1] : nil
            requests.append(try DispatchRequest(name: name, json: payload))
            index += payload == nil ? 1 : 2
        }
        return requests
    }

    /// `plugin.item` as plugins may name them (a hyphenated plugin too): two non-empty names joined by
    /// one dot, with no whitespace, quote, bracket, brace, comma or colon, not starting as a number
    /// does. No JSON text is one, so it tells a name from a payload on the command line and in lines.
    static func isItemName(_ word: Substring) -> Bool {
        ItemName.isName(word)
    }
}

/// A dispatch request that cannot be understood, in one line.
struct DispatchRequestError: Error, CustomStringConvertible {
    var message: String
    /// The word that should have been an item name, for a hint naming the loaded items.
    var notAName: String?
    var description: String { message }

    init(message: String) {
        self.message = message
    }

    static func notAName(_ word: String) -> Self {
        var error = Self(message: "expected an item name (plugin.item), found \"\(word)\"")
        error.notAName = word
        return error
    }

    /// This error with what can be dispatched: the closest of `items` to the word, or a few of them.
    func naming(_ items: [String]) -> Self {
        guard let word = notAName, !items.isEmpty else { return self }
        var error = self
        let hint = NameSuggestion.closest(to: word, among: items).map { "did you mean \($0)?" }
        error.message += "; " + (hint ?? "items: " + items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : ""))
        return error
    }
}
