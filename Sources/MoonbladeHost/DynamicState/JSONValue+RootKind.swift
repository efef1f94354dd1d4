extension JSONValue {
    /// `self`, the state a Lua updater left, with the root kind of `previous`, the state it was given;
    /// nil when the root changed kind and is not empty.
    ///
    /// Lua has one `{}`: a plain empty table an updater returns reads as an empty array, so
    /// `return {}` (emptying the state) would turn an object state into `[]`, which `moonblade run`
    /// could not read back from the file it saved. An empty root takes the kind it had; a non-empty
    /// one of the other kind (`return { 1, 2 }`, `state[1] = x` on an empty object) is refused.
    func keepingRootKind(of previous: JSONValue) -> JSONValue? {
        switch (previous, self) {
        case (.object, .array(let elements)): elements.isEmpty ? .object([:]) : nil
        case (.array, .object(let members)): members.isEmpty ? .array([]) : nil
        default: self
        }
    }

    /// What ``keepingRootKind(of:)`` refused, for the error: `left an array as the state, which is an object`.
    static func rootKindChange(from previous: JSONValue) -> String {
        let (was, left) = if case .object = previous { ("an object", "an array") } else { ("an array", "an object") }
        return "left \(left) as the state, which is \(was): a state keeps its kind at the root"
            + (was == "an object" ? " (its keys are strings; return {} to empty it)" : "")
    }
}
