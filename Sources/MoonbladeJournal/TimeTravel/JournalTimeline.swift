/// The branch the current state is on, read from the entries: which state each change started from,
/// so `undo` can step back along it, across earlier `goto`s.
///
/// A position is the sequence of the entry that made the state (or the sequence the journal started
/// at). A change moves the position to itself and remembers where it came from; a `goto N` moves it
/// to wherever entry N had left it, without a history of its own.
struct JournalTimeline {
    /// The position the state is at now.
    private(set) var position: Int
    /// For each change, the position it was applied at.
    private var parent: [Int: Int] = [:]
    /// For every entry, the position right after it.
    private var positionAfter: [Int: Int] = [:]

    init(start: Int, entries: [JournalEntry]) {
        position = start
        positionAfter[start] = start
        for entry in entries {
            if let target = entry.target {
                position = positionAfter[target] ?? target
            } else if !entry.patch.isEmpty {
                parent[entry.sequence] = position
                position = entry.sequence
            }
            positionAfter[entry.sequence] = position
        }
    }

    /// Where `undo` goes: the position the current state's change was applied at; nil at the start.
    var undoTarget: Int? { parent[position] }
}
