import Foundation
import MoonbladeHost
import MoonbladeJournal
import MoonbladeTesting
import Testing

@Suite struct JournalSpecWriterTests {
    @Test func aRecordedSessionBecomesASpecThatPassesAndCatchesAChange() async throws {
        let workspace = Workspace()
        let plugin = try workspace.tally()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(
            plugins: [plugin, try workspace.plugin("other", #"return { name = "other", updaters = { set = function(s) s.other = "x\"y\n" end } }"#)],
            journal: journal)
        try await host.dispatch("tally.add", ["by": 2]).value
        try await host.dispatch("other.set").value
        try await host.dispatch("tally.push", ["item": "tea"]).value
        _ = try? await host.dispatch("tally.fail").value

        let source = try JournalSpecWriter.spec(from: journal, plugin: "tally")
        #expect(source.contains(#"recorded = apply_updater(recorded, "tally.add", { by = 2 }) -- entry 1"#))
        #expect(source.contains(#"recorded = { count = 2, other = "x\"y\n" } -- as other items left it"#))
        #expect(source.contains("assert.has_error(function() apply_updater(recorded, \"tally.fail\") end)"))
        #expect(!source.contains("other.set"))

        try FileManager.default.createDirectory(atPath: plugin + "/spec", withIntermediateDirectories: true)
        try source.write(toFile: plugin + "/spec/recorded_spec.lua", atomically: true, encoding: .utf8)
        #expect(try await results(plugin) == [.passed])

        // The same spec fails against code that adds differently.
        try workspace.tally(version: 2, step: "amount")
        guard case .failed(let failure)? = try await results(plugin).first else {
            Issue.record("the recorded spec passed against changed code")
            return
        }
        #expect("\(failure)".contains("recorded_spec.lua"))
    }

    @Test func aPluginWithNoRecordedUpdaterIsAnError() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.add").value
        #expect {
            try JournalSpecWriter.spec(from: journal, plugin: "cart")
        } throws: { error in
            "\(error)" == "journal :memory:: has no updater dispatch of plugin cart"
        }
    }

    /// A spec larger than `moonblade test` reads was written, and failed only when run ("larger
    /// than 16777216 bytes"); it is refused when written, saying how to make it smaller.
    @Test func aSpecLargerThanASpecFileMayBeIsRefused() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        for item in ["tea", "cake", "jam"] { try await host.dispatch("tally.push", JSONValue.object(["item": .string(item)])).value }
        let whole = try JournalSpecWriter.spec(from: journal, plugin: "tally")
        #expect {
            try JournalSpecWriter.spec(from: journal, plugin: "tally", sizeLimit: whole.utf8.count / 2)
        } throws: { error in
            "\(error)".hasPrefix("journal :memory:: the spec of entries 1 to 3 of plugin tally would be over ")
                && "\(error)".hasSuffix("a spec file may be; write fewer entries with --from and --until")
        }
        let fewer = try JournalSpecWriter.spec(from: journal, plugin: "tally", until: 1, sizeLimit: whole.utf8.count / 2)
        #expect(fewer.contains("replays entries 1 to 1"))
    }

    /// Odd values a session may hold come back as they were: arrays nested each at its 50th item
    /// (written as one expression, a constructor holds up to 50 items in registers and six such
    /// levels failed to load with "function or expression needs too many registers"), keys that are
    /// Lua keywords or no names, the ends of the integers, -0.0, and bytes that need escaping.
    @Test func oddValuesComeBackAsTheyWere() async throws {
        let workspace = Workspace()
        let plugin = try workspace.plugin("keep", #"return { name = "keep", updaters = { set = function(s, p) s.v = p end } }"#)
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [plugin], journal: journal)
        var crowded = JSONValue.string("leaf")
        for _ in 0..<8 { crowded = .array(Array(repeating: .integer(1), count: 49) + [crowded]) }
        let odd = JSONValue.object([
            "crowded": crowded, "end": .integer(.max), "nil": .integer(.min), "": .double(-0.0), "a b": .double(1e300),
            "text": .string("\0\r\n\"\\é\u{7f}]]--"), "list": .array([.null, .object([:]), .array([])]),
        ])
        try await host.dispatch("keep.set", odd).value
        let source = try JournalSpecWriter.spec(from: journal, plugin: "keep")
        #expect(source.contains("deep[1] = "))
        try FileManager.default.createDirectory(atPath: plugin + "/spec", withIntermediateDirectories: true)
        try source.write(toFile: plugin + "/spec/recorded_spec.lua", atomically: true, encoding: .utf8)
        #expect(try await results(plugin) == [.passed])
    }

    private func results(_ plugin: String) async throws -> [LuaSpecResult] {
        var results: [LuaSpecResult] = []
        for specCase in LuaSpecRunner.discover(plugin: plugin) {
            results.append(await LuaSpecRunner().run(specCase))
        }
        return results
    }
}
