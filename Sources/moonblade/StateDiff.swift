import MoonbladeHost

/// What changed between two states, one line per changed place, for the repl's `diff on`:
/// `+ state.todos[2]: {...}` added, `- state.draft: "x"` removed, `~ state.count: 1 -> 2` changed.
enum StateDiff {
    static func lines(from old: JSONValue, to new: JSONValue, at path: String = "state") -> [String] {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            return Set(before.keys).union(after.keys).sorted().flatMap { key in
                let place = "\(path).\(key)"
                switch (before[key], after[key]) {
                case (nil, let added?): return ["+ \(place): \(added.jsonString())"]
                case (let removed?, nil): return ["- \(place): \(removed.jsonString())"]
                case (let was?, let now?): return lines(from: was, to: now, at: place)
                case (nil, nil): return []
                }
            }
        case (.array(let before), .array(let after)):
            return (0..<max(before.count, after.count)).flatMap { index in
                let place = "\(path)[\(index + 1)]"  // 1-based, as the plugin sees it in Lua
                if index >= before.count { return ["+ \(place): \(after[index].jsonString())"] }
                if index >= after.count { return ["- \(place): \(before[index].jsonString())"] }
                return lines(from: before[index], to: after[index], at: place)
            }
        default:
            return old == new ? [] : ["~ \(path): \(old.jsonString()) -> \(new.jsonString())"]
        }
    }
}
