import MoonbladeHost

extension Journal {
    /// What ``check()`` found in a sound journal.
    public struct Summary: Sendable, Hashable {
        /// How many entries the journal holds.
        public var entries: Int
        /// How many snapshots of the whole state the journal holds.
        public var snapshots: Int
        /// The last entry's sequence (0 for none).
        public var lastSequence: Int
    }

    /// Verifies the journal: SQLite's integrity check, every row readable and matching its checksum
    /// (plugin version rows too), sequences without gaps, and every state rebuildable (each snapshot,
    /// then each patch fitting the state before it).
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

    /// Rebuilds the state after every entry, walking them as replay and to-spec do; `rebuilt` is the
    /// last entry whose state did.
    private func rebuildEveryState(rebuilt: inout Int) throws(JournalError) -> Summary {
        var entries = 0
        let last = try database.lastSequence()
        let walked = try walkRecordedStates(from: 1, until: last) { entry, _, _ throws(JournalError) in
            entries += 1
            rebuilt = entry.sequence
            return true
        }
        if !walked && last > 0 {
            throw JournalError(file: file, problem: "the entries have no snapshot before them")
        }
        // The versions the states were kept by: a damaged row would migrate a state it should not.
        _ = try database.pluginVersionChanges()
        return Summary(entries: entries, snapshots: try database.snapshotCount(), lastSequence: rebuilt)
    }
}
