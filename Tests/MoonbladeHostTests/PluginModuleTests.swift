import Foundation
import MoonbladeHost
import MoonbladeLua
import Testing

/// `require` inside a plugin: modules from its own folder only, sandboxed, cached per version, and a
/// change to any of them reloads the plugin.
@Suite("Plugin modules")
struct PluginModuleTests {
    static let plugin = """
        local helpers = require("helpers")
        local text = require("lib.text")
        assert(require("helpers") == helpers, "modules are not cached")
        return {
          name = "modx",
          updaters = {
            add = function(state) state.counter = state.counter + helpers.step * text.factor end,
          },
        }
        """

    /// A plugin folder with `helpers.lua` and `lib/text.lua` next to its `plugin.lua`.
    static func writeModular(_ scratch: ScratchPlugins, step: Int = 1, factor: Int = 3) throws -> String {
        let folder = try scratch.write("modx", plugin)
        try FileManager.default.createDirectory(atPath: "\(folder)/lib", withIntermediateDirectories: true)
        try "return { step = \(step) }\n".write(toFile: "\(folder)/helpers.lua", atomically: true, encoding: .utf8)
        try "return { factor = \(factor) }\n".write(toFile: "\(folder)/lib/text.lua", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func modulesLoadFromThePluginsFolderAndSubfoldersOnce() async throws {
        let scratch = ScratchPlugins()
        let host = try PluginHost<AppState>(plugins: [try Self.writeModular(scratch)])
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        try await host.dispatch("modx.add").value
        #expect(host.state.counter == 3)
    }

    /// Each bad `require` fails the load at the plugin line that called it, saying why.
    @Test(arguments: [
        ("require(\"../outside\")", "a module name is words joined by dots"),
        ("require(\"/etc/passwd\")", "a module name is words joined by dots"),
        ("require(\"missing\")", "no module missing.lua in the plugin's folder"),
        ("require(\"socket.core\")", "no module socket/core.lua"),
        ("require(\"plugin\")", "plugin.lua is the plugin itself"),
        ("require(42)", "require needs a module name, got number"),
        ("require(\"loop\")", "require(\"loop\"): the module requires itself"),
        ("require(\"escape\")", "escape.lua leads out of the plugin's folder"),
    ])
    func aBadRequireFailsTheLoadAtItsLine(call: String, says: String) throws {
        let scratch = ScratchPlugins()
        let folder = try scratch.write("p", "local unused = 1\nlocal m = \(call)\nreturn {}")
        try "local again = require(\"loop\")\nreturn again\n".write(toFile: "\(folder)/loop.lua", atomically: true, encoding: .utf8)
        let outside = URL(fileURLWithPath: folder).deletingLastPathComponent().appendingPathComponent("secret.lua").path
        try "return 1\n".write(toFile: outside, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/escape.lua", withDestinationPath: outside)
        let host = try PluginHost<AppState>(plugins: [folder])
        let error = try #require(host.loadErrors.first)
        #expect(error.plugin == "p")
        #expect(error.description.contains(says), "\(error)")
        if says.contains("requires itself") {
            #expect(error.description.contains("p/loop.lua:1"), "\(error)")
        } else {
            #expect(error.description.contains("p/plugin.lua:2"), "\(error)")
        }
    }

    /// A module that is a named pipe nobody writes to fails the `require` at once, naming the module's
    /// file inside the plugin's folder.
    @Test func aModuleThatIsAFIFOFailsTheRequireAtOnce() async throws {
        let scratch = ScratchPlugins()
        let folder = try scratch.write("p", "local unused = 1\nlocal m = require(\"lib.piped\")\nreturn {}")
        try FileManager.default.createDirectory(atPath: "\(folder)/lib", withIntermediateDirectories: false)
        let fifo = try UnwrittenFIFO(at: "\(folder)/lib/piped.lua")
        let errors = try await fifo.returnsWithoutWaiting {
            Result { () throws(PluginError) in try PluginHost<AppState>(plugins: [folder]).loadErrors }
        }.get()
        let error = try #require(errors.first)
        #expect(error.kind == .load)
        #expect(error.location?.description == "p/plugin.lua:2")
        #expect(error.description.contains("require(\"lib.piped\"): cannot read p/lib/piped.lua: it is not a regular file (a FIFO)"), "\(error)")
    }

    @Test func aModuleRunsInTheSandboxAndItsErrorsNameItsFile() throws {
        let scratch = ScratchPlugins()
        let folder = try scratch.write("p", "local m = require(\"bad\")\nreturn {}")
        try "local x = 1\nreturn io.open('/etc/passwd')\n".write(toFile: "\(folder)/bad.lua", atomically: true, encoding: .utf8)
        let host = try PluginHost<AppState>(plugins: [folder])
        let error = try #require(host.loadErrors.first)
        #expect(error.description.contains("p/bad.lua:2"), "\(error)")
        #expect(error.description.contains("io"), "\(error)")

        let syntax = try scratch.write("q", "local m = require(\"broken\")\nreturn {}")
        try "return {\n  = 1 }\n".write(toFile: "\(syntax)/broken.lua", atomically: true, encoding: .utf8)
        let other = try PluginHost<AppState>(plugins: [syntax])
        let syntaxError = try #require(other.loadErrors.first)
        #expect(syntaxError.description.contains("q/broken.lua:2"), "\(syntaxError)")
    }

    @Test(arguments: [false, true])
    func changingAModuleInASubfolderReloadsThePlugin(polling: Bool) async throws {
        let scratch = ScratchPlugins()
        let folder = try Self.writeModular(scratch)
        let host = try PluginHost<AppState>(plugins: [folder])
        let events = host.reloadEvents()
        let watcher = host.watchPlugins(debounce: .milliseconds(20), pollingInterval: polling ? .milliseconds(20) : nil)
        defer { watcher.stop() }
        try "return { factor = 5 }\n".write(toFile: "\(folder)/lib/text.lua", atomically: false, encoding: .utf8)
        for await event in events where event.isOutcome {
            break
        }
        try await host.dispatch("modx.add").value
        #expect(host.state.counter == 5)
    }
}
