import MoonbladeHost

extension Journal {
    /// What ``check()`` found in a sound journal.
    public struct Summary: Sendable, Hashable {
        public var entries: Int
        public var snapshots: Int
        /// The last entry's sequence (0 for none).
        public var lastSequence: Int
    }

    /// Verifies the journal: SQLite's integrity check, every row readable, sequences without gaps,
    /// and every state rebuildable (each snapshot, then each patch fitting the state before it).
    ///
    /// - Throws: ``JournalError`` naming the first problem found.
    public func check() throws(JournalError) -> Summary {
        try flush()
        let problems = try database.integrityProblems()
        guard problems.isEmpty else {
            throw JournalError(file: file, problem: "is corrupted (SQLite: \(problems.prefix(3).joined(separator: "; ")))")
        }
        let entries = try database.entries()
        let snapshotSequences = try database.snapshotSequences()
        var state: JSONValue?
        var expected = entries.first?.sequence
        var snapshots = Set(snapshotSequences)
        if let start = snapshotSequences.first, let first = entries.first, start < first.sequence {
            state = try database.snapshot(atOrBefore: start)?.state
            snapshots.remove(start)
        }
        for entry in entries {
            if entry.sequence != expected {
                throw JournalError(file: file, problem: "entry \(expected ?? 0) is missing (the next is \(entry.sequence))")
            }
            expected = entry.sequence + 1
            guard let before = state else {
                throw JournalError(file: file, problem: "entry \(entry.sequence) has no snapshot before it")
            }
            state = try self.state(after: entry, from: before)
            if snapshots.remove(entry.sequence) != nil {
                state = try database.snapshot(atOrBefore: entry.sequence)?.state
            }
        }
        return Summary(entries: entries.count, snapshots: try database.snapshotCount(), lastSequence: entries.last?.sequence ?? 0)
    }
}
