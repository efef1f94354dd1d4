import MoonbladeJournal

extension JournalEntry {
    /// The item and its payload as `history` and `journal log` show them: `tally.add {"by":2}`, or
    /// `goto 3` for a jump.
    var shownItem: String {
        if let target { return "goto \(target)" }
        return ([name] + (payload.map { [$0.jsonString()] } ?? [])).joined(separator: " ")
    }

    /// The outcome in words, with `applied` for a change that was applied.
    func shownOutcome(applied: String) -> String {
        switch outcome {
        case .applied: applied
        case .started: "side effect started"
        case .failed(let message): "failed: \(message)"
        }
    }
}
