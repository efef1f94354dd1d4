import MoonbladeHost

/// A JSON Pointer (RFC 6901): `/orders/0/total` names a value inside a JSON document.
struct JSONPointer: Sendable, Equatable {
    /// The reference tokens, unescaped (`~1` is `/`, `~0` is `~`).
    let tokens: [String]

    /// The pointer `text`: empty for the whole document, else `/`-separated tokens.
    init(_ text: String) throws(Problem) {
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw Problem(.badRequest, title: "bad pointer", detail: "a JSON Pointer starts with / (got \(text.debugDescription))")
        }
        var tokens: [String] = []
        for part in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let escapes = zip(part, part.dropFirst().map(Optional.some) + [nil]).filter { $0.0 == "~" }
            if escapes.contains(where: { $0.1 != "0" && $0.1 != "1" }) {
                throw Problem(.badRequest, title: "bad pointer", detail: "~ must be followed by 0 or 1 in \(text.debugDescription)")
            }
            tokens.append(String(part).replacing("~1", with: "/").replacing("~0", with: "~"))
        }
        self.tokens = tokens
    }

    /// The value the pointer names in `document`.
    ///
    /// - Throws: a 404 problem naming the first token that leads nowhere.
    func value(in document: JSONValue) throws(Problem) -> JSONValue {
        var value = document
        for (position, token) in tokens.enumerated() {
            let place = "/" + tokens[..<position].joined(separator: "/")
            switch value {
            case .object(let members):
                guard let member = members[token] else {
                    throw Problem(.notFound, title: "no such place", detail: "the object at \(place) has no member \(token.debugDescription)")
                }
                value = member
            case .array(let elements):
                guard let index = Int(token), token == String(index), elements.indices.contains(index) else {
                    throw Problem(
                        .notFound, title: "no such place",
                        detail: "the array at \(place) has \(elements.count) elements; no index \(token.debugDescription)")
                }
                value = elements[index]
            default:
                throw Problem(.notFound, title: "no such place", detail: "the value at \(place) has no members")
            }
        }
        return value
    }
}
