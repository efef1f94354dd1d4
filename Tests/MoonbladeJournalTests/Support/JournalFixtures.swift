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

extension Workspace {
    /// What `step`'s `migrate` does unless a test gives another: moves version 1's `total` into `count`.
    static let stepMigration = "function(s, from) s.count = s.total or 0; s.total = nil end"

    /// The `step` plugin, whose state changed shape: version 1 keeps `total`; later versions keep
    /// `count`, and their `migrate` (line 4 of `step/plugin.lua`; nil for none) brings `total` over.
    /// Returns its folder.
    @discardableResult
    func step(version: Int, migrate: String? = Workspace.stepMigration) throws -> String {
        guard version > 1 else {
            return try plugin(
                "step", #"return { name = "step", version = 1, updaters = { add = function(s, p) s.total = (s.total or 0) + p.by end } }"#)
        }
        return try plugin(
            "step",
            """
            return {
              name = "step", version = \(version),
              updaters = { add = function(s, p) s.count = s.count + p.by end },
              \(migrate.map { "migrate = \($0)," } ?? "")
            }
            """)
    }

    /// A host on a journal in memory that recorded `step.add` by 1 under version 1 of `step` (entry
    /// 1), then reloaded version 2 with `migrate` (entry 2, leaving `count` 1). Its instruction budget
    /// is a million, so a runaway `migrate` is stopped quickly.
    func hostMigratedByAReload(migrate: String = Workspace.stepMigration) async throws -> (PluginHost<JSONValue>, Journal) {
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(
            plugins: [try step(version: 1)], journal: journal, configuration: .init(instructionBudget: 1_000_000))
        try await host.dispatch("step.add", ["by": 1]).value
        try step(version: 2, migrate: migrate)
        _ = try await host.reload(plugin: "step")
        return (host, journal)
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
