import Foundation
import Testing

/// One rule for the folders every command takes: a folder with a plugin.lua is a plugin, one without
/// stands for the plugin folders in it, a missing folder exits 4, a folder with no plugin exits 3, and
/// (for `test`) a plugin with no spec case exits 5 however it was named.
@Suite("plugin folders, one rule")
struct FolderRuleTests {
    let workspace = Workspace()

    /// `shelf/` holding the plugins `one` and `two`, each with a passing spec, and a `notes` folder
    /// that is not a plugin (left out).
    func makeShelf() throws {
        for name in ["one", "two"] {
            try workspace.plugin(
                "shelf/\(name)",
                """
                return { name = "\(name)", updaters = { bump = function(state) state.\(name) = (state.\(name) or 0) + 1 end } }
                """)
            try workspace.file(
                "shelf/\(name)/spec/\(name)_spec.lua",
                """
                it("bumps", function() dispatch("\(name).bump"); assert.are.same({ \(name) = 1 }, state()) end)
                """)
        }
        try workspace.file("shelf/notes/readme.txt", "not a plugin")
    }

    static let commands = [["run"], ["check"], ["test"], ["repl"]]

    @Test(arguments: commands)
    func aMissingFolderExits4InEveryCommand(_ command: [String]) async throws {
        try makeShelf()
        let outcome = try await workspace.run(command + ["shelf/one", "typo"], input: "")
        #expect(outcome.status == 4)
        #expect(outcome.stderr == "error: no such folder: typo\n")
        #expect(outcome.stdout == "")
    }

    @Test(arguments: commands)
    func aFolderWithNoPluginExits3InEveryCommand(_ command: [String]) async throws {
        try workspace.file("empty/readme.txt", "nothing here")
        let outcome = try await workspace.run(command + ["empty"], input: "")
        #expect(outcome.status == 3)
        #expect(outcome.stderr == "error: no plugin in empty (expected empty/plugin.lua, or folders that have one)\n")
    }

    @Test func aMissingFolderWinsOverAnEmptyOneAndBothAreReported() async throws {
        try workspace.file("empty/readme.txt", "nothing here")
        let outcome = try await workspace.run("check", "empty", "typo")
        #expect(outcome.status == 4)
        #expect(outcome.stderr.contains("error: no plugin in empty"))
        #expect(outcome.stderr.contains("error: no such folder: typo"))
    }

    @Test func runTakesAFolderOfPlugins() async throws {
        try makeShelf()
        let outcome = try await workspace.run("run", "shelf", "--dispatch", "one.bump", "--dispatch", "two.bump")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try outcome.json() == ["one": 1, "two": 1])
    }

    @Test(arguments: ["shelf", "shelf/"])
    func checkTakesAFolderOfPlugins(_ folder: String) async throws {
        try makeShelf()
        let outcome = try await workspace.run("check", folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "ok one 1\nok two 1\n")
    }

    @Test func testTakesAFolderOfPlugins() async throws {
        try makeShelf()
        let outcome = try await workspace.run("test", "shelf")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "ok   one: bumps\nok   two: bumps\n2 passed, 0 failed\n")
    }

    @Test(arguments: [["shelf"], ["shelf/one", "shelf/bare"], ["shelf/bare"]])
    func aPluginWithoutSpecsExits5HoweverItIsNamed(_ folders: [String]) async throws {
        try makeShelf()
        try workspace.plugin("shelf/bare", "return { name = \"bare\" }")
        let outcome = try await workspace.run(["test"] + folders)
        #expect(outcome.status == 5)
        #expect(outcome.stderr == "error: no spec case in shelf/bare (expected spec/*_spec.lua with an `it`)\n")
    }
}
