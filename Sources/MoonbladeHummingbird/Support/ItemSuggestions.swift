/// The item names a mistyped one may have meant, for an unknown item's "did you mean".
enum ItemSuggestions {
    /// The names of `names` closest to `name` by edit distance, at most 3, and only those within a
    /// third of the name's length (so `todo.ad` suggests `todo.add`, and `x` suggests nothing).
    static func closest(to name: String, among names: [String]) -> [String] {
        let wanted = Array(name.utf8.prefix(256))
        let limit = max(1, wanted.count / 3)
        return
            names
            .map { (name: $0, distance: distance(wanted, Array($0.utf8.prefix(256)))) }
            .filter { $0.distance <= limit }
            .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
            .prefix(3).map(\.name)
    }

    /// The Levenshtein distance between `a` and `b` (one row at a time).
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
