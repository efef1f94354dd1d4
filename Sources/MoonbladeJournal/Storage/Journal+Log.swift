import MoonbladeHost

extension Journal {
    /// One recorded dispatch as `moonblade journal log` shows it: the entry, what it changed in the
    /// state before it, and the plugin versions that state was kept by.
    public struct LogEntry: Sendable {
        public var entry: JournalEntry
        /// One line per change, with the value before it (`total: 1 → 3`); empty when nothing changed.
        public var changes: [String]
        /// The version of each plugin the state before the entry was kept by, by plugin name.
        public var pluginVersions: [String: Int]
    }

    /// The entries from `from` through `until`, each with its changes against the recorded state
    /// before it. Reading changes nothing in the journal.
    ///
    /// - Throws: ``JournalError`` when an entry cannot be read, is damaged, or its patch does not fit.
    public func log(from: Int = 1, until: Int = .max) throws(JournalError) -> [LogEntry] {
        let versions = try pluginVersionHistory()
        var log: [LogEntry] = []
        // An empty journal has no state to walk from, and no entry either.
        _ = try walkRecordedStates(from: max(from, 1), until: until) { entry, before, _ throws(JournalError) in
            log.append(
                LogEntry(
                    entry: entry, changes: entry.patch.lines(against: before),
                    pluginVersions: versions.versions(at: entry.sequence - 1)))
            return true
        }
        return log
    }
}
