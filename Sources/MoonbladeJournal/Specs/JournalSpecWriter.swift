import MoonbladeHost

/// Writes a Lua spec (`*_spec.lua`) that replays a plugin's recorded updater dispatches and asserts
/// the recorded states: a regression test made from a real session.
///
/// Each updater runs on the recorded state before it with the spec's `apply_updater`, as
/// ``JournalReplay`` runs it: outside the store, so no interceptor or rule runs (what a rule
/// dispatched is recorded as an entry of its own; through `dispatch` it ran twice). The spec starts
/// from the recorded state, takes it again wherever other items changed it in between, and each
/// updater must leave the recorded state (or fail, if it failed). The states are written as recorded:
/// entries recorded under an earlier version of the plugin than the one the spec runs against are not
/// migrated (start the spec, with `from`, at the first entry recorded under the current version).
public enum JournalSpecWriter {
    /// The spec's Lua source for `plugin`'s updater entries from `from` through `until`.
    ///
    /// - Parameters:
    ///   - journal: the journal to read.
    ///   - plugin: the plugin whose updater entries the spec runs.
    ///   - first: the first entry to take.
    ///   - last: the last entry to take.
    ///   - sizeLimit: the most bytes the spec may be; nil for the most a spec file may be
    ///     for `moonblade test` to read it (16 MiB).
    /// - Throws: ``JournalError`` when the journal has no updater entry of `plugin` there, its
    ///   states cannot be rebuilt, or the spec would be larger than `sizeLimit` (written, it failed
    ///   only when run, as a file too large to read).
    public static func spec(
        from journal: Journal, plugin: String, from first: Int = 1, until last: Int = .max,
        sizeLimit: Int? = nil
    ) throws(JournalError) -> String {
        let sizeLimit = sizeLimit ?? FileReader.sourceLimit
        var lines: [String] = []
        var literals = LuaLiteral()
        var assertedState: JSONValue?
        var recordedRange: (Int, Int)?
        let walked = try journal.walkRecordedStates(from: max(first, 1), until: last) { entry, before, state throws(JournalError) in
            guard entry.plugin == plugin, entry.kind == .updater, entry.target == nil else { return true }
            recordedRange = (recordedRange?.0 ?? entry.sequence, entry.sequence)
            var entryLines: [String] = []
            if let asserted = assertedState {
                if !StatePatch(from: asserted, to: before).isEmpty {
                    entryLines.append("recorded = \(literals.of(before, indent: "    ")) -- as other items left it")
                }
            } else {
                entryLines.append("local recorded = \(literals.of(before, indent: "    "))")
            }
            let arguments = (["recorded", LuaLiteral.string(entry.name)] + (entry.payload.map { [literals.of($0, indent: "    ")] } ?? []))
                .joined(separator: ", ")
            switch entry.outcome {
            case .failed(let message):
                entryLines.append("-- entry \(entry.sequence) failed: \(comment(message))")
                entryLines.append("assert.has_error(function() apply_updater(\(arguments)) end)")
            default:
                entryLines.append("recorded = apply_updater(\(arguments)) -- entry \(entry.sequence)")
                entryLines.append("assert.are.same(\(literals.of(state, indent: "    ")), recorded)")
            }
            // The deep parts of this entry's values are built before its lines.
            lines += (literals.takeParts() + entryLines).map { "    " + $0 }
            assertedState = state
            return true
        }
        if literals.partCount > 0 {
            lines.insert("    local deep = {} -- the parts of values nested deeper than one Lua expression may be", at: 0)
        }
        guard walked else {
            throw JournalError(file: journal.file, problem: "has no recorded state")
        }
        guard let (start, end) = recordedRange else {
            throw JournalError(file: journal.file, problem: "has no updater dispatch of plugin \(plugin)")
        }
        let size = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        guard size <= sizeLimit else {
            throw JournalError(
                file: journal.file,
                problem: "the spec of entries \(start) to \(end) of plugin \(plugin) would be over \(size) bytes, more than the "
                    + "\(sizeLimit) a spec file may be; write fewer entries with --from and --until")
        }
        return """
            -- A regression spec recorded from \(comment(journal.file)) by `moonblade journal to-spec`: entries \(start) to \(end)
            -- of plugin \(comment(plugin)) replayed on the recorded states, each leaving the recorded state.
            describe(\(LuaLiteral.string("recorded session of \(plugin)")), function()
              it(\(LuaLiteral.string("replays entries \(start) to \(end)")), function()
            \(lines.joined(separator: "\n"))
              end)
            end)

            """
    }

    /// `text` for a Lua line comment: a line break ends one, and Lua's lexer takes a carriage
    /// return for one too, so an error message holding `\r` put the rest of it in the spec as code.
    private static func comment(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
