import Foundation
import MoonbladeJournal

/// How `moonblade journal log` shows one entry.
enum JournalLogLines {
    /// `12  2026-12-03T10:14:52.123Z  tally.add {"by":2}`, then `    tally v1  applied  0.120 ms
    /// (state kept by tally v1)`, then one indented line per change.
    static func lines(_ logged: Journal.LogEntry) -> [String] {
        let entry = logged.entry
        let versions = logged.pluginVersions.sorted { $0.key < $1.key }.map { "\($0.key) v\($0.value)" }
        let kept = versions.isEmpty ? "" : "  (state kept by \(versions.joined(separator: ", ")))"
        let milliseconds = Double(entry.duration.components.seconds) * 1e3 + Double(entry.duration.components.attoseconds) * 1e-15
        return [
            "\(entry.sequence)  \(time.format(entry.time))  \(entry.shownItem)",
            "    \(entry.target == nil ? entry.source : "swift")  \(entry.shownOutcome(applied: "applied"))  \(String(format: "%.3f ms", milliseconds))\(kept)",
        ]
            + logged.changes.map { "    \($0)" }
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
