// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
import Foundation
import MoonbladeHost
import MoonbladeTestSupport
import Testing

// snippet: readme-embed
import MoonbladeHost

struct Greetings: State, Codable {
    var greetings = 0
    var last = ""
}

func greet() async throws {
    let host = try PluginHost<Greetings>(plugins: ["MyPlugins/greeter"])
    let watcher = host.watchPlugins()          // hot reload, for as long as you keep it
    try await host.dispatch("greeter.greet", ["name": "ada"]).value
    print(host.state.last)                     // hello, ada
    watcher.stop()
}
// end snippet

/// The tour's plugin, taken from README.md itself, runs in the typed host the tour embeds it in.
@Test func theTourPluginRunsInTheEmbeddedHost() async throws {
    let readme = repositoryRoot.appendingPathComponent("README.md")
    let plugin = try #require(try DocumentBlock.blocks(in: readme).first { $0.language == "lua" && $0.code.contains("name = \"greeter\"") })
    let scratch = ScratchDirectory()
    let folder = scratch.url.appendingPathComponent("greeter")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try plugin.code.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)

    let host = try PluginHost<Greetings>(plugins: [folder.path])
    try await host.dispatch("greeter.greet", ["name": "ada"]).value
    #expect(host.state.last == "hello, ada")
    #expect(host.state.greetings == 1)
    await #expect(throws: PluginError.self) { try await host.dispatch("greeter.greet", [:]).value }
    #expect(host.state.greetings == 1)
}
