import MoonbladeHost

extension StatePatch {
    /// The changes in one line, for a history listing: `counter = 3, todos[2] removed`.
    public var summary: String {
        guard !isEmpty else { return "no change" }
        return changes.map { change in
            let path = Self.describe(change.path)
            return change.value.map { "\(path) = \(Self.shorten($0.jsonString()))" } ?? "\(path) removed"
        }.joined(separator: ", ")
    }

    /// One line per change, with the value before it: `todos[0].done: false → true`.
    public func lines(against old: JSONValue) -> [String] {
        changes.map { change in
            let before = old.value(at: change.path).map { Self.shorten($0.jsonString()) } ?? "(absent)"
            let after = change.value.map { Self.shorten($0.jsonString()) } ?? "(absent)"
            return "\(Self.describe(change.path)): \(before) → \(after)"
        }
    }

    /// Long values cut to a readable length.
    private static func shorten(_ text: String) -> String {
        text.count <= 60 ? text : text.prefix(57) + "..."
    }
}

extension JSONValue {
    /// The value at `path`, nil when the path does not lead anywhere.
    func value(at path: [StatePatch.PathElement]) -> JSONValue? {
        var value = self
        for element in path {
            switch element {
            case .key(let key):
                guard let member = value[key] else { return nil }
                value = member
            case .index(let index):
                guard let item = value[index] else { return nil }
                value = item
            }
        }
        return value
    }
}
