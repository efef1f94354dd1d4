import MoonbladeHost

extension Journal {
    /// What ``check()`` found in a sound journal.
    public struct Summary: Sendable, Hashable {
        public var entries: Int
        public var snapshots: Int
        /// The last entry's sequence (0 for none).
        public var lastSequence: Int
    }

    /// Verifies the journal: SQLite's integrity check, every row readable and matching its checksum,
    /// sequences without gaps, and every state rebuildable (each snapshot, then each patch fitting
    /// the state before it).
    ///
    /// - Throws: ``JournalError`` naming the first problem found, and how far the states still
    ///   rebuild (what can be read: `goto`, `replay --until` and `to-spec --until` work up to there).
    public func check() throws(JournalError) -> Summary {
        try flush()
        let problems = try database.integrityProblems()
        let corrupted = problems.isEmpty ? nil : "is corrupted (SQLite: \(problems.prefix(3).joined(separator: "; ")))"
        var rebuilt = 0
        let summary: Summary
        do {
            summary = try rebuildEveryState(rebuilt: &rebuilt)
        } catch {
            let reach = rebuilt > 0 ? "the states up to entry \(rebuilt) rebuild" : "no recorded state rebuilds"
            guard let corrupted else { throw JournalError(file: file, problem: "\(error.problem) (\(reach))") }
            throw JournalError(file: file, problem: "\(corrupted); \(reach), then: \(error.problem)")
        }
        if let corrupted {
            throw JournalError(file: file, problem: "\(corrupted); every entry still reads and rebuilds (the last is \(summary.lastSequence))")
        }
        return summary
    }

    /// Rebuilds the state after every entry; `rebuilt` is the last entry whose state did.
    private func rebuildEveryState(rebuilt: inout Int) throws(JournalError) -> Summary {
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
            rebuilt = entry.sequence
        }
        return Summary(entries: entries.count, snapshots: try database.snapshotCount(), lastSequence: entries.last?.sequence ?? 0)
    }
}
