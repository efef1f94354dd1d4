import Foundation
import Testing

/// A server deploys its executable alone: the libraries' Lua glue (the await, side-effect, interceptor
/// and spec preludes) is compiled into it, not read from resource folders beside it. (A copy run here
/// would still find such a folder at the build path SwiftPM bakes into the executable as a fallback,
/// so the first test looks for that path in the executable itself.)
@Suite("moonblade: an executable copied alone")
struct DeployedExecutableTests {
    let workspace = Workspace()

    static let plugin = """
        return {
          updaters = { greet = function(state, p) state.last = "hello, " .. p.name end },
          side_effects = { stamp = function(ctx) return { last = ctx.state().last } end },
          interceptors = { function(item, next) return next(item) end },
        }
        """

    static let spec = """
        describe("greeter.greet", function()
          it("greets by name", function()
            dispatch("greeter.greet", { name = "ada" })
            assert.are.same({ last = "hello, ada" }, state())
          end)
        end)
        """

    @Test func theExecutableLooksForNoResourceBundleOfOurs() throws {
        let bytes = try Data(contentsOf: MoonbladeProcess.executable)
        var bundles: [String] = []  // the names before each ".resources" in the executable's strings
        var searched = bytes.startIndex..<bytes.endIndex
        while let found = bytes.range(of: Data(".resources".utf8), in: searched) {
            let name = bytes[max(bytes.startIndex, found.lowerBound - 40)..<found.upperBound]
            bundles.append(String(decoding: name, as: UTF8.self))
            searched = found.upperBound..<bytes.endIndex
        }
        #expect(!bundles.isEmpty)  // the search works: GRDB's bundle is named there
        #expect(bundles.filter { $0.contains("Moonblade_") } == [])
    }

    @Test func runsPluginsAndSpecsWithNothingBesideIt() async throws {
        try workspace.plugin("greeter", Self.plugin)
        try workspace.file("greeter/spec/greeter_spec.lua", Self.spec)
        let alone = workspace.url.appendingPathComponent("deployed/moonblade")
        try FileManager.default.createDirectory(at: alone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MoonbladeProcess.executable, to: alone)
        #expect(try workspace.contents(of: "deployed") == ["moonblade"])

        let run = try await MoonbladeProcess.run(
            ["run", "greeter", "--dispatch", "greeter.greet", #"{"name": "ada"}"#, "--dispatch", "greeter.stamp"],
            inputBytes: Data(), in: workspace.url, executable: alone)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""last":"hello, ada""#) || run.stdout.contains(#""last": "hello, ada""#), "\(run.stdout)")

        let test = try await MoonbladeProcess.run(["test", "greeter"], inputBytes: Data(), in: workspace.url, executable: alone)
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("1 passed, 0 failed"), "\(test.stdout)")
    }
}
