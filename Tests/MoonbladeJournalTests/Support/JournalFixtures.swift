import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeJournal
import MoonbladeTestSupport

/// A folder for one test's journal files and plugins, removed when the test is done.
final class Workspace: Sendable {
    private let scratch = ScratchDirectory()
    var url: URL { scratch.url }

    /// A path in the workspace.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `<name>/plugin.lua` (replacing an earlier one) and returns the folder.
    @discardableResult
    func plugin(_ name: String, _ source: String) throws -> String {
        let folder = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        return folder.path
    }

    /// The `tally` plugin the journal tests record: a counter, a list, a failing updater, a side effect.
    /// Returns its folder (a test that rewrites it in place needs no path back).
    @discardableResult
    func tally(version: Int = 1, step: String = "by") throws -> String {
        try plugin(
            "tally",
            """
            return {
              name = "tally", version = \(version),
              updaters = {
                add = function(state, p) state.count = (state.count or 0) + (p and p.\(step) or 1) end,
                push = function(state, p)
                  state.items = state.items or {}
                  state.items[#state.items + 1] = p.item
                end,
                pop = function(state) state.items[#state.items] = nil end,
                fail = function(state) state.count = 999; error("tally refuses") end,
              },
              side_effects = {
                twice = function(ctx, p) ctx.dispatch("tally.add", p); ctx.dispatch("tally.add", p) end,
              },
            }
            """)
    }
}

/// A typed state, to check the journal works beyond `JSONValue`.
struct TallyState: State, Codable, Equatable {
    var count = 0
    var items: [String] = []
}

extension JSONValue {
    /// The string this is, if it is one.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of this array, if it is one.
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
