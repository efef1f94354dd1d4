import Foundation
import MoonbladeHost

/// One dispatch that reached the store, as the journal recorded it.
public struct JournalEntry: Sendable, Hashable {
    /// What ran: a state updater, or a side effect (which changes nothing itself; what it dispatches
    /// is recorded as entries of its own).
    public enum Kind: String, Sendable {
        /// A state updater; what it changed is the entry's ``JournalEntry/patch``.
        case updater
        /// A side effect (`side_effect` in the file); what it dispatches is recorded as entries of its own.
        case sideEffect = "side_effect"
    }

    /// How the dispatch ended.
    public enum Outcome: Sendable, Hashable {
        /// An updater that ran; its changes are in ``JournalEntry/patch``.
        case applied
        /// A side effect that started (its own dispatches follow as entries).
        case started
        /// An item that failed: the error's one-line message. The state did not change.
        case failed(String)
    }

    /// The entry's place in the journal: 1, 2, 3, … in the order the store ran them.
    public var sequence: Int
    /// When the store recorded it, once it had run.
    public var time: Date
    /// `plugin.item`, or the Swift type's name.
    public var name: String
    /// Whether it was a state updater or a side effect.
    public var kind: Kind
    /// The item's payload as JSON; nil when it has none.
    public var payload: JSONValue?
    /// The plugin that ran it and its version; nil for a Swift item.
    public var plugin: String?
    /// The version of ``plugin`` that ran it; nil for a Swift item.
    public var pluginVersion: Int?
    /// Whether it applied, started or failed.
    public var outcome: Outcome
    /// How long the store took to run it (for a side effect: to start it).
    public var duration: Duration
    /// What it changed in the state; empty when nothing did.
    public var patch: StatePatch
    /// For an entry the repl's `goto` made: the sequence whose state it brought back.
    public var target: Int?
    /// Whether the row read from the file no longer matches its checksum: reported by the readers
    /// once what the row says has been tried (a patch that does not fit says more than a checksum).
    var isDamaged = false

    /// An entry with every field given; `target` only for one the repl's `goto` made.
    public init(
        sequence: Int, time: Date, name: String, kind: Kind, payload: JSONValue?, plugin: String?,
        pluginVersion: Int?, outcome: Outcome, duration: Duration, patch: StatePatch, target: Int? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.name = name
        self.kind = kind
        self.payload = payload
        self.plugin = plugin
        self.pluginVersion = pluginVersion
        self.outcome = outcome
        self.duration = duration
        self.patch = patch
        self.target = target
    }

    /// Who ran it: `counter v1` for a plugin, `swift` for a Swift item.
    public var source: String {
        plugin.map { "\($0) v\(pluginVersion ?? 1)" } ?? "swift"
    }
}
