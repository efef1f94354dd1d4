import Foundation

/// One dispatch asked for on the command line or typed in: an item name and an optional JSON payload.
/// `moonblade run --watch`, the REPL and `moonblade serve --stdin` read the same lines.
package struct DispatchRequest: Equatable, Sendable {
    package var name: String
    package var payload: JSONValue?

    /// A name and the payload's JSON text (nil or blank for no payload).
    package init(name: String, json: String?) throws(DispatchRequestError) {
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
    package init(line: String) throws(DispatchRequestError) {
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
    package static func requests(from words: [String]) throws(DispatchRequestError) -> [DispatchRequest] {
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
    package static func isItemName(_ word: Substring) -> Bool {
        ItemName.isName(word)
    }
}
