import Foundation
import Logging
import MoonbladeHost
import Testing

@Suite("Standard dependencies: storage, clock and log from Lua")
struct StandardDependenciesTests {
    let scratch = ScratchDirectory()
    let plugins = ScratchPlugins()
    let logged = RecordingLogHandler.Log()

    func host(_ source: String, now: Date = Date(timeIntervalSince1970: 1_800_000_000.25)) throws
        -> PluginHost<JSONValue>
    {
        var dependencies = PluginDependencies()
        dependencies.exposeStorage(KeyValueStorage(directory: scratch.url))
        dependencies.exposeClock { now }
        dependencies.exposeLog(logged.logger)
        let host = try PluginHost<JSONValue>(
            plugins: [try plugins.write("deps", source)], dependencies: dependencies)
        try #require(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    @Test func storageRoundTripsThroughAFileAndReadsNilForAMissingKey() async throws {
        let host = try host(
            """
            return { name = "deps", side_effects = {
              save = function(ctx, p) ctx.deps.storage.write { key = p.key, value = p.value } end,
              load = function(ctx, p)
                local found = ctx.deps.storage.read { key = p.key }
                return { found = found, missing = found == nil }
              end,
            } }
            """)
        try await host.dispatch("deps.save", ["key": "todos", "value": ["milk", 2]] as JSONValue).value
        #expect(
            try await host.dispatch("deps.load", ["key": "todos"] as JSONValue, returning: JSONValue.self)
                .value == ["found": ["milk", 2], "missing": false])
        #expect(
            try await host.dispatch("deps.load", ["key": "absent"] as JSONValue, returning: JSONValue.self)
                .value == ["missing": true])
        #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("todos.json").path))
    }

    @Test func anEscapingKeyFailsTheSideEffectAtThePluginLine() async throws {
        let host = try host(
            """
            return { name = "deps", side_effects = {
              save = function(ctx)
                ctx.deps.storage.write { key = "../outside", value = 1 }
              end,
            } }
            """)
        let error = await #expect(throws: (any Error).self) { try await host.dispatch("deps.save").value }
        let description = "\(error.map { "\($0)" } ?? "")"
        #expect(description.contains("deps/plugin.lua:3:"))
        #expect(description.contains("invalid storage key \"../outside\""))
        #expect(
            !FileManager.default.fileExists(
                atPath: scratch.url.deletingLastPathComponent().appendingPathComponent("outside.json").path))
    }

    @Test func theClockGivesSecondsAndAnISO8601String() async throws {
        let host = try host(
            """
            return { name = "deps", side_effects = {
              now = function(ctx) return { seconds = ctx.deps.clock.now(), iso = ctx.deps.clock.iso8601() } end,
            } }
            """)
        let now = try await host.dispatch("deps.now", returning: JSONValue.self).value
        #expect(now == ["seconds": .double(1_800_000_000.25), "iso": "2027-01-15T08:00:00Z"])
    }

    @Test func logTakesAStringOrATableWithMetadata() async throws {
        let host = try host(
            """
            return { name = "deps", side_effects = {
              log = function(ctx)
                ctx.deps.log.info("plain")
                ctx.deps.log.warning { message = "with fields", order = "A-1", total = 250 }
              end,
              bad = function(ctx) ctx.deps.log.error { text = "no message" } end,
            } }
            """)
        try await host.dispatch("deps.log").value
        #expect(
            logged.entries.withLock { $0 } == [
                // `plugin` names who logged: the folder of the calling line's file.
                .init(level: .info, message: "plain", metadata: ["plugin": "deps"]),
                .init(level: .warning, message: "with fields", metadata: ["order": "A-1", "total": "250", "plugin": "deps"]),
            ])
        let error = await #expect(throws: (any Error).self) { try await host.dispatch("deps.bad").value }
        #expect("\(error.map { "\($0)" } ?? "")".contains("a log entry needs a message string"))
    }
}
