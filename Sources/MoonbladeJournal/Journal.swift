import Foundation
import Logging
import MoonbladeHost

/// The dispatch journal: every dispatch that reached a store, what it changed, and snapshots of the
/// whole state, in an SQLite file (WAL mode).
///
/// ```swift
/// let journal = try Journal(path: "app.journal")
/// let host = try PluginHost<AppState>(plugins: ["Plugins/todo"], journal: journal)  // recovers the state
/// try await host.dispatch("todo.add", ["title": "milk"]).value
/// try journal.close()                                                               // final snapshot
/// ```
///
/// **Durability.** With ``Configuration/Durability-swift.enum/groupCommit`` (the default) entries are
/// written by a background thread, many per transaction, about every ``Configuration/commitInterval``
/// (2 ms); a dispatch is in the file once the commit after it ends (``flush()`` waits for that), so a
/// crash of the process loses at most the dispatches of the last few milliseconds. With ``Configuration/Durability-swift.enum/strict``
/// each dispatch is committed and synced to disk before its dispatch handle resolves: nothing that
/// resolved is lost, even when the machine stops.
public final class Journal: Sendable {
    /// How the journal writes.
    public struct Configuration: Sendable {
        /// When an entry reaches the disk.
        public enum Durability: Sendable, Hashable {
            /// A background thread commits what has queued up, many entries per transaction, and
            /// SQLite writes them to its log without syncing (`synchronous = NORMAL`): a crash of the
            /// process loses only what was not yet committed; a power loss may lose the last commits.
            case groupCommit
            /// Every dispatch is committed and synced (`synchronous = FULL`) on the store's thread
            /// before its handle resolves.
            case strict
        }

        /// How surely an entry is on disk when its dispatch handle resolves; group commit by default.
        public var durability: Durability
        /// A snapshot of the whole state is written every this many entries (and at ``Journal/close()``),
        /// so recovery applies at most this many patches.
        public var snapshotInterval: Int
        /// With group commit, how long the writer lets entries gather before it commits them (sooner
        /// when 512 wait, or when ``Journal/flush()`` is called). Default 2 ms.
        public var commitInterval: Duration
        /// With group commit, how many entries may wait for the writer before a dispatch waits for it
        /// (bounds memory and what a crash can lose).
        public var maxPendingEntries: Int
        /// Where write failures of the background writer are logged.
        public var logger: Logger

        /// A configuration; a `snapshotInterval` or `maxPendingEntries` below 1 counts as 1.
        public init(
            durability: Durability = .groupCommit, snapshotInterval: Int = 1000, commitInterval: Duration = .milliseconds(2),
            maxPendingEntries: Int = 10_000, logger: Logger = Logger(label: "moonblade.journal")
        ) {
            self.durability = durability
            self.commitInterval = commitInterval
            self.snapshotInterval = max(1, snapshotInterval)
            self.maxPendingEntries = max(1, maxPendingEntries)
            self.logger = logger
        }
    }

    /// The journal's file, `:memory:` for one in memory.
    public var file: String { database.file }
    /// The settings the journal was opened with.
    public let configuration: Configuration
    let database: JournalDatabase
    let writer: JournalWriter

    /// Opens the journal at `path`, creating it when the file is missing or empty.
    ///
    /// - Throws: ``JournalError`` when the file is not a journal, is corrupted, or cannot be opened.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws(JournalError) {
        try self.init(path: path, create: true, configuration: configuration)
    }

    /// Opens the existing journal at `path` to read it (check, replay, specs); a missing file is an error.
    public static func existing(at path: String) throws(JournalError) -> Journal {
        try Journal(path: path, create: false, configuration: Configuration())
    }

    /// A journal kept in memory: time travel for a session that keeps nothing.
    public static func inMemory(configuration: Configuration = Configuration()) throws(JournalError) -> Journal {
        try Journal(path: nil, create: true, configuration: configuration)
    }

    private init(path: String?, create: Bool, configuration: Configuration) throws(JournalError) {
        self.configuration = configuration
        database = try JournalDatabase(path: path, create: create, strict: configuration.durability == .strict)
        writer = JournalWriter(database: database, configuration: configuration, lastSequence: try database.lastSequence())
    }

    /// The highest sequence recorded so far (0 for an empty journal), including entries not yet committed.
    public var lastSequence: Int { writer.lastSequence }

    /// The entries with sequences from `from` through `until`, in order, once every earlier dispatch
    /// is committed.
    ///
    /// - Throws: ``JournalError`` naming the first entry that cannot be read or is damaged.
    public func entries(from: Int = 0, until: Int = .max) throws(JournalError) -> [JournalEntry] {
        try flush()
        let entries = try database.entries(from: from, until: until)
        if let damaged = entries.first(where: \.isDamaged) {
            throw damage(of: damaged)
        }
        return entries
    }

    /// The error for an entry whose row no longer matches its checksum.
    func damage(of entry: JournalEntry) -> JournalError {
        JournalError(file: file, problem: "entry \(entry.sequence) (\(entry.name)) is damaged: its row does not match its checksum")
    }

    /// The state after `entry`, given the state before it.
    ///
    /// - Throws: ``JournalError`` when its patch does not fit, or its row is damaged.
    func state(after entry: JournalEntry, from state: JSONValue) throws(JournalError) -> JSONValue {
        let after: JSONValue
        do {
            after = try entry.patch.applied(to: state)
        } catch {
            throw JournalError(file: file, problem: "entry \(entry.sequence) (\(entry.name)): its patch does not fit the state: \(error)")
        }
        guard !entry.isDamaged else { throw damage(of: entry) }
        return after
    }

    /// Walks the entries from `first` through `last` with the recorded state before and after each, as
    /// the store had them: each patch applied to the state before it, and where a snapshot follows an
    /// entry (a host restarted from another state writes one), the next entry starting from it.
    /// `body` returns false to stop.
    ///
    /// - Throws: ``JournalError`` for an entry missing from the walk, a patch that does not fit or a
    ///   damaged row, once the entries before it were walked.
    ///
    /// - Returns: false when the journal holds no state before `first` (nothing was walked).
    func walkRecordedStates(
        from first: Int, until last: Int,
        _ body: (_ entry: JournalEntry, _ before: JSONValue, _ after: JSONValue) throws(JournalError) -> Bool
    ) throws(JournalError) -> Bool {
        try flush()
        let recorded = try database.lastSequence()
        // Named as asked: the state before `first` is `first - 1`'s, which `committedState` would name.
        guard first - 1 <= recorded else {
            throw JournalError(file: file, problem: "no entry \(first) (the journal goes from 0 to \(recorded))")
        }
        guard var state = try committedState(at: first - 1, last: recorded) else { return false }
        let snapshots = Set(try database.snapshotSequences())
        // Read unchecked: `state(after:from:)` reports a damaged entry in order, after what comes
        // before it was walked (and a patch that does not fit says more than a checksum).
        var expected = first
        for entry in try database.entries(from: first, until: last) {
            // Entries are numbered without gaps: a missing number is a lost row, not a state to skip.
            guard entry.sequence == expected else {
                throw JournalError(file: file, problem: "entry \(expected) is missing (the next is \(entry.sequence))")
            }
            expected += 1
            let after = try self.state(after: entry, from: state)
            guard try body(entry, state, after) else { return true }
            state = after
            if snapshots.contains(entry.sequence), let snapshot = try database.snapshot(atOrBefore: entry.sequence) {
                state = snapshot.state
            }
        }
        return true
    }

    /// The state as of `sequence` (the latest when nil): the last snapshot at or before it plus the
    /// patches after it. No plugin code runs: it is the state as recorded, kept by the plugin versions
    /// ``pluginVersions(at:)`` names (``TimeTravel`` migrates what it puts back; this does not). Nil
    /// for a journal with nothing in it.
    ///
    /// - Throws: ``JournalError`` for a sequence outside 0 through the last, naming the entry whose
    ///   patch does not fit, or the unreadable or damaged row.
    public func state(at sequence: Int? = nil) throws(JournalError) -> JSONValue? {
        try flush()
        let last = try database.lastSequence()
        return try committedState(at: sequence ?? last, last: last)
    }

    /// ``state(at:)`` once the journal is flushed and its last sequence read as `last` (so the walk
    /// does both once).
    private func committedState(at target: Int, last: Int) throws(JournalError) -> JSONValue? {
        guard (0...last).contains(target) else {
            throw JournalError(file: file, problem: "no entry \(target) (the journal goes from 0 to \(last))")
        }
        guard let snapshot = try database.snapshot(atOrBefore: target) else {
            guard try database.entries(from: 0, until: target).isEmpty else {
                throw JournalError(file: file, problem: "entries up to \(target) have no snapshot before them")
            }
            return nil
        }
        var state = snapshot.state
        for entry in try database.entries(from: snapshot.sequence + 1, until: target) {
            state = try self.state(after: entry, from: state)
        }
        return state
    }

    /// The version of each plugin the state as of `sequence` (the latest when nil) was kept by, by
    /// plugin name, as the journal recorded them when they changed (a host starting, a reload, a
    /// plugin loaded into a running host).
    ///
    /// A plugin that is missing was not loaded then, or the journal was written before versions were
    /// recorded; ``TimeTravel`` and a host resuming the journal take its state as it is.
    ///
    /// - Throws: ``JournalError`` for a version row that is unreadable or damaged.
    public func pluginVersions(at sequence: Int? = nil) throws(JournalError) -> [String: Int] {
        try pluginVersionHistory().versions(at: sequence ?? .max)
    }

    /// Every plugin version change the journal recorded, once every earlier dispatch is committed.
    func pluginVersionHistory() throws(JournalError) -> PluginVersionHistory {
        try flush()
        return PluginVersionHistory(try database.pluginVersionChanges())
    }

    /// The state as of `sequence` (the latest when nil) decoded as `S`; nil for an empty journal.
    ///
    /// Start a `PluginTester` from a recorded session with it:
    /// `PluginTester(plugins: [...], initialState: try journal.state(as: AppState.self, at: 40)!)`.
    public func state<S: Decodable>(as type: S.Type, at sequence: Int? = nil) throws(JournalError) -> S? {
        guard let json = try state(at: sequence) else { return nil }
        return try decode(json, as: type)
    }

    /// Decodes a recorded state as `S`.
    func decode<S: Decodable>(_ json: JSONValue, as type: S.Type) throws(JournalError) -> S {
        // A dynamic state is the recorded value itself: through JSON text and Foundation's decoder,
        // which cannot tell `1.0` from `1`, a float that is a whole number would come back an integer.
        if S.self == JSONValue.self { return json as! S }
        do {
            return try JSONDecoder().decode(S.self, from: Data(json.jsonString().utf8))
        } catch {
            throw JournalError(file: file, problem: "the recorded state is not a \(S.self): \(error)")
        }
    }

    /// Waits until every entry recorded so far is committed.
    ///
    /// - Throws: the error of a background commit that failed since the last call.
    public func flush() throws(JournalError) {
        try writer.flush()
    }

    /// Commits what is pending, writes a snapshot of the latest state (the shutdown snapshot) when
    /// entries followed the last one, stops the writer and closes the file. Entries recorded after
    /// this are dropped.
    public func close() throws(JournalError) {
        defer { database.close() }
        try writer.close()
    }

    /// A journal released without ``close()`` still commits what it holds and stops its writer.
    deinit {
        try? close()
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's timed waits and the journal's rows take it.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) * 1e-18
    }
}
