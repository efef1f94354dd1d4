import Moonblade
import MoonbladeHost

/// Redux DevTools for a journaled host: list what happened, go back to any recorded state and go on
/// from there (a new branch), undo, and compare.
///
/// Every jump is itself a dispatch (`goto`, recorded with the sequence it went back to), so the
/// journal keeps the whole story and recovery after a jump works like after any change.
public struct TimeTravel<S: State & Codable>: Sendable {
    /// The host whose store the jumps are dispatched to.
    public let host: PluginHost<S>
    /// The journal the host records into: the history, and the states a jump puts back.
    public let journal: Journal
    /// Time travel for `host`, which records into `journal`.
    public init(host: PluginHost<S>, journal: Journal) {
        self.host = host
        self.journal = journal
    }

    /// The last `count` entries, oldest first.
    public func history(last count: Int = 20) throws(JournalError) -> [JournalEntry] {
        try journal.entries(from: max(0, journal.lastSequence - count + 1))
    }

    /// The sequence whose state the store holds now (see `JournalTimeline`).
    public func position() throws(JournalError) -> Int {
        try timeline().position
    }

    /// Puts back the state as of `sequence`; what is dispatched next builds on it.
    ///
    /// A state recorded under an earlier version of a plugin than the loaded one is migrated first, as
    /// a reload would have migrated it: the plugin's `migrate(state, from_version)` runs on it (see
    /// `PluginMigrator`), in the store's order, so the code that runs next reads the state it expects.
    ///
    /// - Throws: ``JournalError`` when `sequence` is not in the journal. A `PluginError` when a
    ///   migration fails (item `plugin.migrate`, with its `file:line`), or when the state was recorded
    ///   under a later version of a plugin than the loaded one (`PluginError/Kind/downgrade`, naming
    ///   the plugin and both versions); the store's state is then left as it was.
    public func goto(_ sequence: Int) async throws {
        guard let json = try journal.state(at: sequence) else {
            throw JournalError(file: journal.file, problem: "no state recorded as of \(sequence)")
        }
        let state = try journal.decode(json, as: S.self)
        let versions = try journal.pluginVersions(at: sequence)
        let migrator = host.migrator
        // Migrated inside the jump, as a reload's swap migrates: against the versions loaded when the
        // store applies it, and a failing migration leaves the store's state as it was.
        try await host.store.dispatch(
            TimeTravelItem(target: sequence, state: state) { state in
                try migrator.migrate(state, recordedUnder: versions)
            }
        ).value
    }

    /// Goes back to the state before the last change of the current branch; returns its sequence.
    ///
    /// - Throws: ``JournalError`` when there is nothing to undo.
    @discardableResult
    public func undo() async throws -> Int {
        guard let target = try timeline().undoTarget else {
            throw JournalError(file: journal.file, problem: "nothing to undo")
        }
        try await goto(target)
        return target
    }

    /// How the current state differs from the state as of `sequence`, one line per change
    /// (`counter: 3 → 5`); empty when they are equal.
    public func diff(from sequence: Int) throws -> [String] {
        guard let old = try journal.state(at: sequence) else {
            throw JournalError(file: journal.file, problem: "no state recorded as of \(sequence)")
        }
        let current = try JSONValue(encoding: host.state)
        return StatePatch(from: old, to: current).lines(against: old)
    }

    private func timeline() throws(JournalError) -> JournalTimeline {
        JournalTimeline(start: 0, entries: try journal.entries())
    }
}
