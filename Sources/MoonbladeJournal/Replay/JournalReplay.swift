import MoonbladeHost

/// Runs recorded updater dispatches through the current plugin code and finds the first whose result
/// differs from the recorded one: how a plugin change is checked against real traffic before it is
/// reloaded into a running host.
///
/// Each recorded Lua updater runs on the recorded state before it, outside any store (no interceptor,
/// rule or listener runs, as the recorded item had already passed them). Entries that are not Lua
/// updaters (side effects, Swift items, `goto`s) are not run; their recorded changes are applied so
/// the next entry starts from the recorded state (and after a host's restart from another state, from
/// that state).
///
/// An entry recorded under an earlier version of a plugin than the loaded one is replayed as that
/// version's state would have been migrated: the loaded plugins' `migrate` runs on the recorded state
/// before it and on the recorded state after it (see `PluginMigrator`), and the updater's result is
/// compared with the migrated recorded one. A migration that fails is a divergence (the current code
/// failed on recorded traffic); a state recorded under a later version than the loaded one is an error.
public struct JournalReplay {
    /// The first dispatch whose replayed result differs from the recorded one.
    public struct Divergence: Sendable {
        /// The recorded entry whose replay differs.
        public var entry: JournalEntry
        /// What the current code did: applied, or its error's first line.
        public var replayed: JournalEntry.Outcome
        /// The state recorded after the entry, migrated to the loaded plugins' versions when that works.
        public var recordedState: JSONValue
        /// The state the current code left: the state before the entry when it failed.
        public var replayedState: JSONValue

        /// The differences, one line each: `counter: 3 (recorded) → 4 (replayed)` or the outcomes.
        public var lines: [String] {
            var lines: [String] = []
            if replayed != entry.outcome {
                lines.append("recorded: \(Self.describe(entry.outcome)); replayed: \(Self.describe(replayed))")
            }
            lines += StatePatch(from: recordedState, to: replayedState).lines(against: recordedState)
                .map { $0.replacingOccurrences(of: " → ", with: " (recorded) → ") + " (replayed)" }
            return lines
        }

        private static func describe(_ outcome: JournalEntry.Outcome) -> String {
            switch outcome {
            case .applied: "applied"
            case .started: "started"
            case .failed(let message): "failed: \(message)"
            }
        }
    }

    /// What a replay found.
    public struct Report: Sendable {
        /// How many Lua updaters ran and matched before the end or the divergence.
        public var matched: Int
        /// How many entries were not run (side effects, Swift items, jumps).
        public var skipped: Int
        /// The first dispatch that differs; nil when every one replayed matched.
        public var divergence: Divergence?
    }

    /// Replays the entries of `journal` from `from` through `until` on `host`'s plugins.
    ///
    /// Failures match when both runs fail, whatever their messages (a message names lines that a
    /// change moves); a state matches when its JSON does, with `1` and `1.0` the same number.
    ///
    /// - Throws: ``JournalError`` when the recorded states cannot be rebuilt, or one was recorded under
    ///   a later version of a plugin than the loaded one.
    public static func run(
        _ journal: Journal, on host: PluginHost<JSONValue>, from: Int = 1, until: Int = .max
    ) throws(JournalError) -> Report {
        var report = Report(matched: 0, skipped: 0, divergence: nil)
        let versions = try journal.pluginVersionHistory()
        let migrator = host.migrator
        _ = try journal.walkRecordedStates(from: max(from, 1), until: until) { entry, recordedBefore, recordedAfter throws(JournalError) in
            guard entry.kind == .updater, entry.plugin != nil, entry.target == nil else {
                report.skipped += 1
                return true
            }
            let state: JSONValue
            let recorded: JSONValue
            do throws(PluginError) {
                let recordedUnder = versions.versions(at: entry.sequence - 1)
                state = try migrator.migrate(recordedBefore, recordedUnder: recordedUnder)
                recorded = try migrator.migrate(recordedAfter, recordedUnder: recordedUnder)
            } catch  where error.kind == .downgrade {
                throw JournalError(file: journal.file, problem: "entry \(entry.sequence) (\(entry.name)): \(error.message)")
            } catch {
                report.divergence = Divergence(
                    entry: entry, replayed: .failed(Journal.oneLine(error)), recordedState: recordedAfter,
                    replayedState: recordedBefore)
                return false
            }
            let replayed: JournalEntry.Outcome
            let replayedState: JSONValue
            do {
                replayedState = try host.applyUpdater(entry.name, payload: entry.payload, to: state)
                replayed = .applied
            } catch {
                replayedState = state
                replayed = .failed(Journal.oneLine(error))
            }
            let outcomesMatch =
                switch (entry.outcome, replayed) {
                case (.failed, .failed), (.applied, .applied): true
                default: false
                }
            guard outcomesMatch, StatePatch(from: recorded, to: replayedState).isEmpty else {
                report.divergence = Divergence(
                    entry: entry, replayed: replayed, recordedState: recorded, replayedState: replayedState)
                return false
            }
            report.matched += 1
            return true
        }
        return report
    }
}
