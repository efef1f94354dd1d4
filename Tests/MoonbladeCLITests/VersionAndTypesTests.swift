import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade --version and types")
struct VersionAndTypesTests {
    let workspace = Workspace()

    @Test func versionPrintsTheRelease() async throws {
        let outcome = try await workspace.run("--version")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.wholeMatch(of: /moonblade \d+\.\d+\.\d+ \(Lua 5\.4\)\n/) != nil, "\(outcome.stdout)")
    }

    /// The release `--version` names is the newest one CHANGELOG.md describes and README.md's package
    /// line asks for.
    @Test func versionIsTheNewestReleaseOfTheChangelog() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = try #require(changelog.firstMatch(of: /\n## \[(\d+\.\d+\.\d+)\]/)).1
        let outcome = try await workspace.run("--version")
        #expect(outcome.stdout == "moonblade \(newest) (Lua 5.4)\n")
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("from: \"\(newest)\""))
    }

    @Test func typesWritesTheDefinitionsAndALuarcPerPlugin() async throws {
        let tally = try workspace.plugin("plugins/tally", tallyPlugin)
        let outcome = try await workspace.run("types", "--out", "editor/types", "plugins")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try workspace.read("editor/types/moonblade.lua").hasPrefix("---@meta moonblade\n"))
        #expect(try workspace.read("editor/types/moonblade_spec.lua").hasPrefix("---@meta moonblade-spec\n"))
        let luarc = try String(contentsOfFile: "\(tally)/.luarc.json", encoding: .utf8)
        #expect(luarc.contains(#""workspace.library": ["../../editor/types"]"#), "\(luarc)")
        let missing = try await workspace.run("types", "--out", "t", "nowhere")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no such folder: nowhere"))
    }
}
