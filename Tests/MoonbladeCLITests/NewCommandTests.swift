import Foundation
import Testing

@Suite("moonblade new plugin")
struct NewCommandTests {
    let workspace = Workspace()

    /// The plugin as created passes `check` and `test`, runs, and has its editor types.
    @Test func aNewPluginPassesCheckAndTestAsCreated() async throws {
        let created = try await workspace.run("new", "plugin", "shelf", "--dir", "Plugins")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try workspace.contents(of: "Plugins/shelf").contains(".luarc.json"))
        #expect(try workspace.contents(of: "Plugins/shelf/spec") == ["shelf_spec.lua"])
        #expect(try workspace.read("Plugins/shelf/.luarc.json").contains(#""workspace.library": ["../.types"]"#))
        #expect(
            try workspace.read("Plugins/.types/moonblade.lua").contains(
                #"---@alias moonblade.ItemName "shelf.add"|"shelf.load"|"shelf.loaded"|"shelf.save""#))
        let source = try workspace.read("Plugins/shelf/plugin.lua")
        #expect(source.contains("---@type moonblade.Plugin") && source.contains("updaters") && source.contains("side_effects"))
        #expect(source.contains("observers") && !source.contains("{{name}}"))

        let check = try await workspace.run("check", "Plugins/shelf")
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let test = try await workspace.run("test", "Plugins")
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("3 passed"), "\(test.stdout)")
        let run = try await workspace.run("run", "Plugins/shelf", "--data-dir", "data", "--dispatch", "shelf.add", #"{"by": 2}"#)
        #expect(try run.json() == ["count": 2])
        #expect(try workspace.read("data/shelf.json") == #"{"count":2}"#)
    }

    @Test func anExistingFolderOrABadNameIsRefused() async throws {
        try workspace.file("shelf/notes.txt", "mine")
        let existing = try await workspace.run("new", "plugin", "shelf")
        #expect(existing.status == 4)
        #expect(existing.stderr.contains("exists already; nothing was written"))
        #expect(try workspace.contents(of: "shelf") == ["notes.txt"])
        let bad = try await workspace.run("new", "plugin", "my.shelf")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("my.shelf cannot name a plugin"))
    }
}
