import Foundation
import MoonbladeHost

/// Turns recorded dispatches into journal rows and commits them: on a background thread, many per
/// transaction (group commit), or at once on the recording thread (strict).
///
/// Recording is cheap on the store's thread: the item, its outcome and the new state are queued as
/// they are; payload encoding, patch computation and JSON text happen when the batch is committed.
final class JournalWriter: @unchecked Sendable {
    // @unchecked Sendable: the queue's vars are touched only while holding `condition`, the commit's
    // (`currentState`, `stateEncoder`, `snapshotSequence`, `pluginVersions`) only under `commitLock`.

    /// A dispatch as the recorder saw it, before any JSON work.
    ///
    /// A class: an entry moves from the recorder to the staging list, the queue and the writer, and
    /// copying a struct of this many references cost more than the allocation. Only the thread that
    /// holds it changes it (before it is queued); the queue's lock hands it to the writer.
    final class Pending: @unchecked Sendable {
        // @unchecked Sendable: changed only by the thread that holds it, before `condition` hands it on.
        var sequence = 0
        let time: Date
        let item: RecordedItem
        var outcome: JournalEntry.Outcome
        let duration: Duration
        /// The state after an applied updater; nil when the state cannot have changed.
        var newState: (any Sendable)?
        let target: Int?
        /// The store's state version right after an applied updater (to tell a rollback).
        let stateVersion: UInt64?
        /// The plugins loaded right after a reload's swap (the versions the state is kept by from it
        /// on); nil for every other item.
        let pluginsAfterward: [PluginInfo]?

        init(
            time: Date, item: RecordedItem, outcome: JournalEntry.Outcome, duration: Duration, newState: (any Sendable)?,
            target: Int?, stateVersion: UInt64?, pluginsAfterward: [PluginInfo]?
        ) {
            self.time = time
            self.item = item
            self.outcome = outcome
            self.duration = duration
            self.newState = newState
            self.target = target
            self.stateVersion = stateVersion
            self.pluginsAfterward = pluginsAfterward
        }
    }

    private let database: JournalDatabase
    private let configuration: Journal.Configuration
    /// Guards everything below it that is not marked otherwise; waiters wait on it.
    private let condition = NSCondition()
    private var pending: [Pending] = []
    private var recordedSequence: Int
    private var committedSequence: Int
    private var writeError: JournalError?
    /// How deep the outcome interceptor is in items: while above 0, entries wait in `staged` until it
    /// sees how the item ended (an interceptor failing after the change undoes it).
    private var stagingDepth = 0
    /// How many ``flush()`` calls wait for the writer: it then commits at once instead of gathering.
    private var flushWaiters = 0
    private var staged: [Pending] = []
    private var closed = false
    private var threadStarted = false
    /// Whether the writer thread is still running (it ends once closed and drained).
    private var threadRunning = false
    /// Held while a batch is turned into rows and committed, so batches commit in order.
    private let commitLock = NSLock()
    /// The state as of the last processed entry, in JSON (guarded by `commitLock`).
    private var currentState: JSONValue?
    /// Turns each entry's new state into JSON, reusing what it shares with the last (guarded by `commitLock`).
    private let stateEncoder = JSONValueEncoder()
    /// The sequence of the last snapshot written (guarded by `commitLock`).
    private var snapshotSequence: Int
    /// The latest version recorded of each plugin (guarded by `commitLock`): a version row is written
    /// only when one changes.
    private var pluginVersions: [String: Int] = [:]

    init(database: JournalDatabase, configuration: Journal.Configuration, lastSequence: Int) {
        self.database = database
        self.configuration = configuration
        recordedSequence = lastSequence
        committedSequence = lastSequence
        snapshotSequence = lastSequence
    }

    var lastSequence: Int { condition.withLock { recordedSequence } }

    /// Sets the state the next entry applies to: the recovered state, or another one the host starts
    /// from (then written as a snapshot, so the journal can rebuild every state after it), and the
    /// `plugins` it is kept by (a version row for each whose version the journal does not have last).
    func begin(with state: JSONValue, recovered: JSONValue?, plugins: [PluginInfo]) throws(JournalError) {
        commitLock.lock()
        defer { commitLock.unlock() }
        currentState = state
        stateEncoder.reset()
        pluginVersions = PluginVersionHistory(try database.pluginVersionChanges()).versions(at: .max)
        let sequence = lastSequence
        let snapshots = recovered.map({ StatePatch(from: $0, to: state).isEmpty }) != true ? [(sequence, state)] : []
        let versions = versionChanges(to: plugins, at: sequence)
        if !snapshots.isEmpty || !versions.isEmpty {
            try database.append([], snapshots: snapshots, versions: versions)
        }
        if !snapshots.isEmpty { snapshotSequence = sequence }
    }

    /// Records the version of a plugin loaded into the running host, as of the last entry numbered:
    /// loading it changed no state, and every entry numbered after it ran with it loaded.
    func pluginLoaded(_ plugin: PluginInfo) throws(JournalError) {
        commitLock.lock()
        defer { commitLock.unlock() }
        let versions = versionChanges(to: [plugin], at: lastSequence)
        guard !versions.isEmpty else { return }
        try database.append([], snapshots: [], versions: versions)
    }

    /// A version row as of `sequence` for each of `plugins` whose version is not the latest recorded,
    /// taken as the latest from now on (with `commitLock` held).
    private func versionChanges(to plugins: [PluginInfo], at sequence: Int) -> [PluginVersionHistory.Change] {
        plugins.compactMap { plugin in
            guard pluginVersions[plugin.name] != plugin.version else { return nil }
            pluginVersions[plugin.name] = plugin.version
            return PluginVersionHistory.Change(sequence: sequence, plugin: plugin.name, version: plugin.version)
        }
    }

    /// Records a dispatch: held back while an item's outcome is pending (``beginItem()``), else queued;
    /// with the strict setting, queued entries are committed before this returns.
    func record(
        _ item: RecordedItem, outcome: JournalEntry.Outcome, duration: Duration, newState: (any Sendable)?,
        target: Int? = nil, stateVersion: UInt64? = nil, pluginsAfterward: [PluginInfo]? = nil
    ) throws(JournalError) {
        let entry = Pending(
            time: Date(), item: item, outcome: outcome, duration: duration, newState: newState, target: target,
            stateVersion: stateVersion, pluginsAfterward: pluginsAfterward)
        let isStaged = condition.withLock {
            guard stagingDepth > 0 else { return false }
            staged.append(entry)
            return true
        }
        if !isStaged {
            try enqueue([entry])
        }
    }

    /// The outcome interceptor starts handing on an item: entries wait until ``endItem(failure:stateVersion:)``.
    func beginItem() {
        condition.withLock { stagingDepth += 1 }
    }

    /// The item has gone through every interceptor: queues its entries. When it failed and the store's
    /// state version moved since the last applied entry, the store rolled its changes back: they
    /// are recorded as failed with the item's error, and changed nothing.
    func endItem(failure: (any Error)?, stateVersion: UInt64) throws(JournalError) {
        let entries = condition.withLock { () -> [Pending] in
            stagingDepth -= 1
            guard stagingDepth == 0 else { return [] }
            defer { staged = [] }
            return staged
        }
        guard !entries.isEmpty else { return }
        let lastApplied = entries.last { $0.stateVersion != nil }?.stateVersion
        if let failure, let lastApplied, lastApplied != stateVersion {
            let message = Journal.oneLine(failure)
            for entry in entries where entry.outcome == .applied {
                entry.outcome = .failed(message)
                entry.newState = nil
            }
        }
        try enqueue(entries)
    }

    /// Numbers `entries` and queues them for the writer; with the strict setting, commits them.
    private func enqueue(_ entries: [Pending]) throws(JournalError) {
        condition.lock()
        while pending.count >= configuration.maxPendingEntries && !closed {
            condition.wait()
        }
        guard !closed else {
            condition.unlock()
            // Group commit drops what comes after close (documented); strict promised every
            // resolved dispatch is on disk, so the dispatch fails instead.
            guard configuration.durability != .strict else {
                throw JournalError(file: database.file, problem: "is closed: the dispatch was not recorded")
            }
            return
        }
        let wasEmpty = pending.isEmpty
        for entry in entries {
            recordedSequence += 1
            entry.sequence = recordedSequence
            pending.append(entry)
        }
        let strict = configuration.durability == .strict
        if !strict {
            startThreadIfNeeded()
            // The writer sleeps on an empty queue, then gathers a batch: waking it per entry would cost
            // more than the entry.
            if wasEmpty || pending.count >= Self.batchSize { condition.signal() }
        }
        condition.unlock()
        if strict {
            try commitPending()
        }
    }

    /// Waits until everything recorded so far is committed; reports a failed background commit once.
    func flush() throws(JournalError) {
        condition.lock()
        defer { condition.unlock() }
        let target = recordedSequence
        if committedSequence < target && threadStarted {
            flushWaiters += 1
            condition.broadcast()
            while committedSequence < target && writeError == nil {
                condition.wait()
            }
            flushWaiters -= 1
        }
        if let error = writeError {
            writeError = nil
            throw error
        }
        if committedSequence < target {
            // No writer thread (strict, or nothing queued yet): commit here.
            condition.unlock()
            defer { condition.lock() }
            try commitPending()
        }
    }

    /// Commits what is queued, writes the shutdown snapshot and stops the writer.
    ///
    /// Entries queued while closing are committed before the snapshot, and the writer thread has
    /// ended when this returns: nothing writes to the file after it (the journal then closes it).
    func close() throws(JournalError) {
        let flushError: JournalError?
        do {
            try flush()
            flushError = nil
        } catch {
            flushError = error
        }
        condition.withLock {
            closed = true
            condition.broadcast()
            while threadRunning {
                condition.wait()
            }
        }
        if let flushError { throw flushError }
        commitLock.lock()
        defer { commitLock.unlock() }
        if let currentState, committedSequenceValue > snapshotSequence {
            try database.append([], snapshots: [(committedSequenceValue, currentState)])
            snapshotSequence = committedSequenceValue
        }
    }

    private var committedSequenceValue: Int { condition.withLock { committedSequence } }

    /// The writer commits at once when this many entries wait.
    private static let batchSize = 512

    private func startThreadIfNeeded() {
        guard !threadStarted else { return }
        threadStarted = true
        threadRunning = true
        let thread = Thread { [self] in runWriter() }
        thread.name = "moonblade.journal"
        thread.start()
    }

    /// The background writer: commits whatever has queued up since the last commit, until closed.
    private func runWriter() {
        while true {
            condition.lock()
            while pending.isEmpty && !closed {
                condition.wait()
            }
            // Group commit: let a batch gather for a moment, unless someone waits for it.
            let deadline = Date().addingTimeInterval(configuration.commitInterval.timeInterval)
            while !closed && flushWaiters == 0 && pending.count < Self.batchSize && Date() < deadline {
                _ = condition.wait(until: deadline)
            }
            let done = pending.isEmpty && closed
            if done {
                threadRunning = false
                condition.broadcast()
            }
            condition.unlock()
            if done { return }
            do {
                try commitPending(reportingFailureLater: true)
            } catch {
                configuration.logger.error("journal write failed: \(error)")
            }
        }
    }

    /// Takes everything queued, turns it into rows and commits them in one transaction.
    ///
    /// - Parameter reportingFailureLater: whether a failure is also kept for the next ``flush()``: the
    ///   background writer's, which no caller sees (a strict commit's failure fails its dispatch).
    private func commitPending(reportingFailureLater: Bool = false) throws(JournalError) {
        commitLock.lock()
        defer { commitLock.unlock() }
        let batch = condition.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batch.isEmpty else { return }
        // A failed batch is not in the file: the entries after it are patched from the state before it.
        let (stateBefore, snapshotBefore, versionsBefore) = (currentState, snapshotSequence, pluginVersions)
        do {
            var snapshots: [(sequence: Int, state: JSONValue)] = []
            var versions: [PluginVersionHistory.Change] = []
            let entries = try batch.map { pending throws(JournalError) in
                let entry = try makeEntry(pending)
                if let currentState, entry.sequence - snapshotSequence >= configuration.snapshotInterval {
                    snapshots.append((entry.sequence, currentState))
                    snapshotSequence = entry.sequence
                }
                // A swap recorded as failed (its migration failed, or an interceptor's failure rolled
                // it back) left the state as it was: its versions are not the state's.
                if let plugins = pending.pluginsAfterward, entry.outcome == .applied {
                    versions += versionChanges(to: plugins, at: entry.sequence)
                }
                return entry
            }
            try database.append(entries, snapshots: snapshots, versions: versions)
            condition.withLock {
                committedSequence = batch.last!.sequence
                condition.broadcast()
            }
        } catch {
            (currentState, snapshotSequence, pluginVersions) = (stateBefore, snapshotBefore, versionsBefore)
            condition.withLock {
                // The entries are lost; later ones still commit, and the failure is reported once.
                committedSequence = batch.last!.sequence
                if reportingFailureLater { writeError = error }
                condition.broadcast()
            }
            throw error
        }
    }

    /// The row for `pending`: its payload as JSON and the patch from the current state to its new one.
    private func makeEntry(_ pending: Pending) throws(JournalError) -> JournalEntry {
        var patch = StatePatch()
        if let newState = pending.newState {
            let json: JSONValue
            do {
                json = try stateEncoder.encode(newState)
            } catch {
                throw JournalError(
                    file: database.file, problem: "entry \(pending.sequence) (\(pending.item.name)): the state has no JSON form: \(error)")
            }
            patch = StatePatch(from: currentState ?? JSONValue(), to: json)
            currentState = json
        }
        let plugin = pending.item.plugin
        let payload: JSONValue?
        do {
            payload = try pending.item.payloadJSON()
        } catch {
            payload = .string("(no JSON form: \(error))")
        }
        return JournalEntry(
            sequence: pending.sequence, time: pending.time, name: pending.item.name,
            kind: pending.item.isUpdater ? .updater : .sideEffect, payload: payload, plugin: plugin?.name,
            pluginVersion: plugin?.version, outcome: pending.outcome, duration: pending.duration,
            patch: patch, target: pending.target)
    }
}
