import Foundation
import Testing

/// `moonblade types` given folders named what a file system allows and JSON does not, and an --out
/// that cannot be a folder.
@Suite("moonblade types with hostile folders")
struct TypesCommandHostileTests {
    let workspace = Workspace()

    /// The `.luarc.json` is JSON whatever the folder is called: a quote or a backslash in --out made
    /// it no JSON at all, and LuaLS read no library.
    @Test(arguments: [#"we"ird"#, #"back\slash"#, "tab\tand ünï"])
    func theLuarcIsJSONWhateverTheFolderIsCalled(out: String) async throws {
        let plugin = try workspace.plugin("plugins/tally", tallyPlugin)
        let outcome = try await workspace.run("types", "--out", out, "plugins")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let luarc = try Data(contentsOf: URL(fileURLWithPath: "\(plugin)/.luarc.json"))
        let json = try JSONSerialization.jsonObject(with: luarc) as? [String: Any]
        #expect(json?["workspace.library"] as? [String] == ["../../\(out)"])
        #expect(try workspace.contents(of: out) == ["moonblade.lua", "moonblade_spec.lua"])
    }

    @Test func anOutThatIsAFileIsNamedInAPlainErrorAndExits4() async throws {
        try workspace.file("taken", "not a folder")
        let outcome = try await workspace.run("types", "--out", "taken")
        #expect(outcome.status == 4)
        #expect(outcome.stderr.hasPrefix("error: cannot write taken: "), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("Domain="), "\(outcome.stderr)")
        #expect(try workspace.read("taken") == "not a folder")
    }
}
