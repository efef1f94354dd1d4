import MoonbladeHost

/// Writes a Lua spec (`*_spec.lua`) that replays a plugin's recorded updater dispatches and asserts
/// the recorded states: a regression test made from a real session.
///
/// The spec sets the recorded state before the first dispatch, and again wherever other items
/// changed it in between; each dispatch must leave the recorded state (or fail, if it failed).
public enum JournalSpecWriter {
    /// The spec's Lua source for `plugin`'s updater entries from `from` through `until`.
    ///
    /// - Throws: ``JournalError`` when the journal has no updater entry of `plugin` there, or its
    ///   states cannot be rebuilt.
    public static func spec(
        from journal: Journal, plugin: String, from first: Int = 1, until last: Int = .max
    ) throws(JournalError) -> String {
        var lines: [String] = []
        var assertedState: JSONValue?
        var recordedRange: (Int, Int)?
        let walked = try journal.walkRecordedStates(from: max(first, 1), until: last) { entry, before, state throws(JournalError) in
            guard entry.plugin == plugin, entry.kind == .updater, entry.target == nil else { return true }
            recordedRange = (recordedRange?.0 ?? entry.sequence, entry.sequence)
            if assertedState.map({ !StatePatch(from: $0, to: before).isEmpty }) ?? true {
                lines.append("    set_state(\(LuaLiteral.of(before, indent: "    ")))")
            }
            let arguments = ([LuaLiteral.string(entry.name)] + (entry.payload.map { [LuaLiteral.of($0, indent: "    ")] } ?? []))
                .joined(separator: ", ")
            switch entry.outcome {
            case .failed(let message):
                lines.append("    -- entry \(entry.sequence) failed: \(message.replacingOccurrences(of: "\n", with: " "))")
                lines.append("    assert.has_error(function() dispatch(\(arguments)) end)")
            default:
                lines.append("    dispatch(\(arguments)) -- entry \(entry.sequence)")
            }
            lines.append("    assert.are.same(\(LuaLiteral.of(state, indent: "    ")), state())")
            assertedState = state
            return true
        }
        guard walked else {
            throw JournalError(file: journal.file, problem: "has no recorded state")
        }
        guard let (start, end) = recordedRange else {
            throw JournalError(file: journal.file, problem: "has no updater dispatch of plugin \(plugin)")
        }
        return """
            -- A regression spec recorded from \(journal.file) by `moonblade journal to-spec`: entries \(start) to \(end)
            -- of plugin \(plugin) replayed on the recorded states, each leaving the recorded state.
            describe(\(LuaLiteral.string("recorded session of \(plugin)")), function()
              it(\(LuaLiteral.string("replays entries \(start) to \(end)")), function()
            \(lines.joined(separator: "\n"))
              end)
            end)

            """
    }
}
