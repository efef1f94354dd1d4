import Foundation
import MoonbladeTestSupport
import Testing

/// The Lua the libraries run, kept in `Sources/<Target>/Lua/*.lua` (SwiftPM resources): each file
/// compiles with `luac5.4 -p`.
@Suite struct LuaResourceFileTests {
    /// Every `.lua` file under `Sources/`, found from this file's place in the repository.
    static let files: [URL] = {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        return (walk?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "lua" }
            .sorted { $0.path < $1.path }
    }()

    @Test func theLibrariesKeepTheirLuaInFiles() {
        // The glue of MoonbladeLua, MoonbladeHost and MoonbladeTesting: a walk that found none of it
        // would pass the check below without checking anything.
        let names = Set(Self.files.map { $0.lastPathComponent })
        #expect(names.isSuperset(of: ["await.lua", "library.lua", "side_effects.lua", "spec_dsl.lua"]), "\(names)")
    }

    @Test(.enabled(if: luacPath != nil, "luac5.4 is not installed (Scripts/bootstrap installs lua5.4)"))
    func everyLuaFileCompiles() throws {
        for file in Self.files {
            let source = try String(contentsOf: file, encoding: .utf8)
            #expect(try luacComplaint(about: source) == nil, "\(file.path)")
        }
        #expect(try luacComplaint(about: "return function(") != nil)  // luac does complain
    }
}
