/// Which spec cases a run takes: busted's `--filter`, `--tags` and `--exclude-tags`.
///
/// A case's tags are the `#words` in its `describe` and `it` names (`it("syncs #slow", …)`).
public struct LuaSpecSelection {
    /// A regular expression the case's full name (`plugin: describe … it`) must contain a match of.
    public var filter: Regex<AnyRegexOutput>?
    /// When not empty, a case needs at least one of these tags.
    public var tags: Set<String>
    /// A case with any of these tags is left out.
    public var excludedTags: Set<String>

    /// A selection; `filter` is a regular expression.
    ///
    /// - Throws: ``LuaSpecSelectionError`` when `filter` is no regular expression.
    public init(filter: String? = nil, tags: [String] = [], excludedTags: [String] = []) throws(LuaSpecSelectionError) {
        do {
            self.filter = try filter.map { try Regex($0) }
        } catch {
            throw LuaSpecSelectionError(message: "--filter \(filter ?? ""): not a regular expression: \(error)")
        }
        self.tags = Set(tags.map(Self.bare))
        self.excludedTags = Set(excludedTags.map(Self.bare))
    }

    /// Whether the run takes `specCase`.
    public func includes(_ specCase: LuaSpecCase) -> Bool {
        let caseTags = Set(specCase.tags)
        if let filter, (try? filter.firstMatch(in: specCase.name)) == nil { return false }
        if !tags.isEmpty, caseTags.isDisjoint(with: tags) { return false }
        return caseTags.isDisjoint(with: excludedTags)
    }

    /// `slow` for `#slow` or `slow`: tags are given with or without their mark.
    private static func bare(_ tag: String) -> String {
        tag.hasPrefix("#") ? String(tag.dropFirst()) : tag
    }
}

/// A selection that cannot be made, such as a filter that is no regular expression.
public struct LuaSpecSelectionError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option: `--filter [: not a regular expression: …`.
    public var message: String
    public var description: String { message }
}
