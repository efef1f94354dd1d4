import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Reloads of code that is wrong in every way a plugin can be, or that changes what its items are:
/// a broken version never replaces a working one, and what replaces it leaves nothing of the old behind.
@Suite("Hostile reloads: code")
struct HostileReloadCodeTests {
    let scratch = ScratchPlugins()

    /// A broken next version: its files and where the error must be.
    struct BrokenVersion: Sendable, CustomTestStringConvertible {
        var label: String
        var plugin: String
        var module: String? = nil
        var kind: PluginError.Kind
        var place: String
        var testDescription: String { label }
    }

    static let brokenVersions: [BrokenVersion] = [
        BrokenVersion(label: "empty file", plugin: "", kind: .shape, place: "counterx/plugin.lua:1"),
        BrokenVersion(label: "a comment only", plugin: "-- nothing yet\n", kind: .shape, place: "counterx/plugin.lua:1"),
        BrokenVersion(
            label: "returns a number", plugin: "\nreturn 42\n", kind: .shape, place: "counterx/plugin.lua:"),
        BrokenVersion(
            label: "raises at the top level", plugin: "local x = 1\nerror(\"not today\")\nreturn {}\n", kind: .load,
            place: "counterx/plugin.lua:2"),
        BrokenVersion(
            label: "reads an undefined global at the top level", plugin: "local x = 1\nlocal y = pritn\nreturn {}\n",
            kind: .load, place: "counterx/plugin.lua:2"),
        BrokenVersion(
            label: "loops at the top level", plugin: "local n = 0\nwhile true do n = n + 1 end\n", kind: .load,
            place: "counterx/plugin.lua:2"),
        BrokenVersion(
            label: "a module raises", plugin: "local h = require(\"helper\")\n" + versionedCounter(factor: 2),
            module: "local t = {}\n\nt.x = nil .. \"\"\nreturn t\n", kind: .load, place: "counterx/helper.lua:3"),
        BrokenVersion(
            label: "a module has a syntax error", plugin: "local h = require(\"helper\")\n" + versionedCounter(factor: 2),
            module: "return {\n  factor = = 2,\n}\n", kind: .load, place: "counterx/helper.lua:2"),
        BrokenVersion(
            label: "a module is missing", plugin: "\nlocal h = require(\"nowhere\")\n" + versionedCounter(factor: 2),
            kind: .load, place: "counterx/plugin.lua:2"),
        BrokenVersion(
            label: "an updater is not a function",
            plugin: "return {\n  name = \"counterx\",\n  updaters = { add = 5 },\n}\n", kind: .shape,
            place: "counterx/plugin.lua:3"),
        BrokenVersion(
            label: "an on_start rule names an unknown item",
            plugin: versionedCounter(factor: 2, extra: "observers = {\n { on_start = { \"counterx.nope\" } } },"),
            kind: .shape, place: "counterx/plugin.lua:"),
        BrokenVersion(
            label: "an item is both an updater and a side effect",
            plugin: versionedCounter(factor: 2, extra: "side_effects = { add = function(ctx) end },"), kind: .shape,
            place: "counterx/plugin.lua:"),
    ]

    @Test(arguments: brokenVersions)
    func aBrokenVersionNeverReplacesTheWorkingOne(_ broken: BrokenVersion) async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(
            plugins: [folder], initialState: AppState(counter: 5),
            configuration: .init(instructionBudget: 1_000_000))
        let events = ReloadLog(host)
        if let module = broken.module {
            try module.write(toFile: folder + "/helper.lua", atomically: true, encoding: .utf8)
        }
        _ = try scratch.write("counterx", broken.plugin)
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.plugin == "counterx")
        #expect(error.kind == broken.kind, "\(error)")
        #expect(error.location?.description.hasPrefix(broken.place) == true, "\(error)")
        #expect(host.state.counter == 5)
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 6)
        await waitUntil { events.all.count == 2 }
        #expect(events.all.last?.hasPrefix("failed counterx: plugin counterx: \(broken.place)") == true, "\(events.all)")
        // Fixed, it takes over.
        try? FileManager.default.removeItem(atPath: folder + "/helper.lua")
        _ = try scratch.write("counterx", versionedCounter(factor: 3))
        try await host.reload(plugin: "counterx")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 9)
    }

    @Test func aFileWithAByteOrderMarkLoadsAndKeepsItsLineNumbers() async throws {
        let folder = try scratch.write("counterx", "\u{FEFF}" + versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 1)
        _ = try scratch.write("counterx", "\u{FEFF}" + versionedCounter(factor: 1).replacingOccurrences(of: "p.by", with: "p.by +"))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.location?.description == "counterx/plugin.lua:3")
        _ = try scratch.write("counterx", "\u{FEFF}" + versionedCounter(factor: 2))
        try await host.reload(plugin: "counterx")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 3)
    }

    @Test func aFileThatIsNotUTF8SaysSoNamingIt() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        // Saved as Latin-1 by an editor: a comment with "café".
        var latin1 = Data("-- caf".utf8)
        latin1.append(0xE9)
        latin1.append(Data(("\n" + versionedCounter(factor: 2)).utf8))
        try latin1.write(to: URL(fileURLWithPath: folder + "/plugin.lua"))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(error.plugin == "counterx")
        #expect(error.message == "cannot read \(folder)/plugin.lua: line 1 is not UTF-8 text; save the file as UTF-8", "\(error)")
        #expect(error.location?.description == "counterx/plugin.lua:1", "\(error)")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 1)
        // A module saved so: the error is at its line, raised where the plugin requires it.
        _ = try scratch.write("counterx", "local helper = require(\"helper\")\n" + versionedCounter(factor: 2))
        var module = Data("return {\n  -- na".utf8)
        module.append(0xEF)
        module.append(Data("ve\n}\n".utf8))
        try module.write(to: URL(fileURLWithPath: folder + "/helper.lua"))
        let moduleError = try await #require(throws: PluginError.self) { try await host.reload(plugin: "counterx") }
        #expect(moduleError.location?.description == "counterx/plugin.lua:1", "\(moduleError)")
        #expect(moduleError.message.contains("counterx/helper.lua:2: cannot read counterx/helper.lua: line 2 is not UTF-8 text"), "\(moduleError)")
        try await host.dispatch("counterx.add", ["by": 1]).value
        #expect(host.state.counter == 2)
    }

    @Test func anItemThatChangesKindAcrossVersionsRunsAsItsNewKind() async throws {
        let asUpdater = versionedCounter(factor: 1, extra: "")
        let asSideEffect = """
            return { name = "counterx", side_effects = {
              add = function(ctx, p) return "side effect " .. p.by end,
            } }
            """
        let folder = try scratch.write("counterx", asUpdater)
        let host = try PluginHost<AppState>(plugins: [folder])
        try await host.dispatch("counterx.add", ["by": 1]).value
        _ = try scratch.write("counterx", asSideEffect)
        try await host.reload(plugin: "counterx")
        #expect(try await host.dispatch("counterx.add", ["by": 2], returning: String.self).value == "side effect 2")
        #expect(host.state.counter == 1)
        _ = try scratch.write("counterx", asUpdater)
        try await host.reload(plugin: "counterx")
        try await host.dispatch("counterx.add", ["by": 4]).value
        #expect(host.state.counter == 5)
        let wrongKind = try await #require(throws: PluginError.self) {
            try await host.dispatch("counterx.add", ["by": 4], returning: String.self).value
        }
        #expect(wrongKind.kind == .wrongKind)
    }

    @Test func rulesAndInterceptorsAreReplacedNotAddedByEachReload() async throws {
        let source = { (version: Int) in
            """
            return {
              name = "counterx", version = \(version),
              updaters = {
                add = function(state, p) state.counter = state.counter + p.by end,
                seen = function(state) state.todos[#state.todos + 1] = { title = "v\(version)", done = false } end,
              },
              interceptors = { function(item, next)
                if item.name == "counterx.add" then item.payload.by = item.payload.by * 10 end
                next(item)
              end },
              observers = { { on_dispatch = "counterx.add", dispatch = { "counterx.seen" } } },
            }
            """
        }
        let folder = try scratch.write("counterx", source(1))
        let host = try PluginHost<AppState>(plugins: [folder])
        for version in 2...30 {
            _ = try scratch.write("counterx", source(version))
            try await host.reload(plugin: "counterx")
        }
        _ = try await host.dispatchAndSettle("counterx.add", ["by": 1])
        #expect(host.state.counter == 10)
        #expect(host.state.todos == [Todo(title: "v30")])
    }

    @Test func memoryStaysFlatOverManyReloadsGoodAndBroken() async throws {
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder])
        let padding = "local big = {}\nfor i = 1, 2000 do big[i] = { i, tostring(i) } end\n"
        func reloads(_ count: Int) async throws {
            for round in 0..<count {
                let good =
                    padding
                    + versionedCounter(
                        factor: round % 5 + 1,
                        extra: """
                            side_effects = { size = function() return #big end },
                            """)
                _ = try scratch.write("counterx", round.isMultiple(of: 3) ? good + "\nerror('late')\n" : good)
                _ = try? await host.reload(plugin: "counterx")
                try await host.dispatch("counterx.add", ["by": 1]).value
            }
        }
        try await reloads(100)
        let warm = host.memoryInUse
        try await reloads(400)
        let after = host.memoryInUse
        // Each version holds ~200 KiB in `big`: keeping the old ones would add 80 MB; the collector's
        // slack (it runs when the heap doubles) is the most the count may move.
        #expect(after < max(2 * warm, warm + 4 << 20), "\(warm) → \(after) bytes")
    }
}
