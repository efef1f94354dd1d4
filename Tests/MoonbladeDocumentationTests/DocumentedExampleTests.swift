import Foundation
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// Every example a reader can copy from the documents works as shown: each Swift block is the code of a
/// snippet region a target builds, each Lua block compiles, and each whole plugin passes the shape check
/// `moonblade check` runs.
@Suite("Documented examples")
struct DocumentedExampleTests {
    static let blocks: [DocumentBlock] = (try? documents().flatMap(DocumentBlock.blocks(in:))) ?? []

    @Test func theDocumentsAreFoundAndHoldExamples() throws {
        let names = try documents().map(relativePath)
        #expect(names.contains("README.md"))
        #expect(Self.blocks.contains { $0.language == "swift" })
        #expect(Self.blocks.contains { $0.language == "lua" })
    }

    @Test func everySwiftBlockIsTheCodeOfACompiledSnippet() throws {
        var regions: [String: SnippetRegion] = [:]
        for region in try snippetSources().flatMap(SnippetRegion.regions(in:)) {
            if let earlier = regions[region.name] {
                Issue.record(
                    "snippet \(region.name) is defined twice: \(relativePath(earlier.file)):\(earlier.line) and \(relativePath(region.file)):\(region.line)"
                )
            }
            regions[region.name] = region
        }
        for block in Self.blocks where block.language == "swift" {
            guard let name = block.snippetName else {
                Issue.record("\(block): a Swift block needs a `<!-- snippet: NAME -->` line before it, naming compiled code")
                continue
            }
            guard let region = regions[name] else {
                Issue.record("\(block): no `// snippet: \(name)` region in a Swift file under Tests/ or Examples/")
                continue
            }
            let shown = normalized(block.code), compiled = normalized(region.code)
            if shown != compiled {
                Issue.record(
                    "\(block) and \(relativePath(region.file)):\(region.line) differ (snippet \(name)):\n--- document\n\(shown)\n--- compiled\n\(compiled)"
                )
            }
        }
    }

    @Test(.enabled(if: luacPath != nil, "luac5.4 is not installed (Scripts/bootstrap installs it)"))
    func everyLuaBlockCompiles() throws {
        for block in Self.blocks where block.language == "lua" {
            if let complaint = try luacComplaint(about: block.code) {
                Issue.record("\(block): the Lua block does not compile: \(complaint)")
            }
        }
    }

    @Test func everyWholePluginPassesTheShapeCheck() throws {
        let plugins = Self.blocks.filter { $0.language == "lua" && isWholePlugin($0.code) }
        #expect(!plugins.isEmpty)
        for block in plugins {
            let scratch = ScratchDirectory()
            let folder = scratch.url.appendingPathComponent(pluginName(in: block.code) ?? "plugin")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try block.code.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
            let (_, errors, _) = try PluginHost<JSONValue>.check(plugins: [folder.path])
            for error in errors {
                Issue.record("\(block): the plugin does not pass `moonblade check`: \(error)")
            }
        }
    }

    /// A block is a whole plugin when, comments aside, it starts by returning a table with a name.
    private func isWholePlugin(_ code: String) -> Bool {
        let lines = code.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let first = lines.first { !$0.isEmpty && !$0.hasPrefix("--") }
        return first?.hasPrefix("return {") == true && pluginName(in: code) != nil
    }

    private func pluginName(in code: String) -> String? {
        guard let match = code.firstMatch(of: /name\s*=\s*"([A-Za-z0-9_-]+)"/) else { return nil }
        return String(match.1)
    }
}

/// A manifest a document shows is read by SwiftPM: one whose region is not valid manifest code fails.
@Test func everyDocumentedManifestIsReadBySwiftPM() throws {
    let manifests = try snippetSources().filter { $0.lastPathComponent == "Package.swift" }
    #expect(!manifests.isEmpty)
    for manifest in manifests {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "dump-package", "--package-path", manifest.deletingLastPathComponent().path]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(relativePath(manifest)): \(complaint)")
    }
}
