/// Which version of each plugin the journal's states are kept by, read from its version rows: a row
/// is written when a plugin's version changes (a host starting with other plugin code, a reload's
/// swap, a plugin loaded into a running host), never per dispatch.
///
/// A plugin has no version at a sequence when it was not loaded then, or when the journal was written
/// before versions were recorded (an older journal: its states were kept by whatever the host had
/// loaded). Both are read as "the version loaded now": the state is taken as it is, which is what
/// hosts did before versions were recorded, and what a reload does for a plugin it loads.
struct PluginVersionHistory: Sendable {
    /// From the state after entry `sequence` on, `plugin`'s state is kept by `version`.
    struct Change: Sendable, Hashable {
        var sequence: Int
        var plugin: String
        var version: Int
    }

    /// In the order they apply: by sequence, and at one sequence as written.
    private let changes: [Change]

    init(_ changes: [Change]) {
        self.changes = changes
    }

    /// The versions by plugin name the state as of `sequence` is kept by.
    func versions(at sequence: Int) -> [String: Int] {
        var versions: [String: Int] = [:]
        for change in changes {
            guard change.sequence <= sequence else { break }
            versions[change.plugin] = change.version
        }
        return versions
    }
}
