/// The "did you mean" of an unknown name: the known name closest to it, if one is close enough to be
/// a slip of the keyboard rather than another name.
package enum NameSuggestion {
    /// The name in `names` fewest edits (insertions, deletions, substitutions) away from `name`, when
    /// that is at most a third of its length (and at least 2); the first such in `names` on a tie.
    package static func closest(to name: String, among names: some Sequence<String>) -> String? {
        let allowed = max(2, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            let distance = editDistance(Array(name), Array(candidate))
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `; did you mean counter.increment?`, or nothing.
    package static func hint(for name: String, among names: some Sequence<String>) -> String {
        closest(to: name, among: names).map { "; did you mean \($0)?" } ?? ""
    }

    /// Levenshtein's distance, one row at a time.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
