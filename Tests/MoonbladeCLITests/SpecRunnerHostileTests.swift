import Foundation
import FoundationXML
import Testing

/// `moonblade test` on specs that hold every byte in their names and messages, and on a case that
/// never ends.
@Suite("moonblade test with hostile specs")
struct SpecRunnerHostileTests {
    let workspace = Workspace()

    /// Every byte, `]]>` and markup in names, in raised strings and tables, in a pending case and in
    /// a file that fails as it loads: the report parses, with one testcase per case.
    @Test func theJUnitReportParsesWithEveryByteInNamesAndMessages() async throws {
        let bytes = (0...255).map { "\\\($0)" }.joined()
        try workspace.plugin("odd", "return { name = \"odd\" }")
        try workspace.file("odd/spec/bytes_spec.lua", """
            describe("all \(bytes) ]]> <x>", function()
              it("raises \(bytes)", function() error("message \(bytes) ]]>") end)
              it("raises a table \(bytes)", function() error({ ["key \(bytes)"] = "value \(bytes) ]]>" }) end)
              pending("later \(bytes)")
            end)
            """)
        try workspace.file("odd/spec/broken_spec.lua", "error(\"at load \(bytes) ]]>\")\n")
        let outcome = try await workspace.run("test", "odd", "--junit", "report.xml")
        #expect(outcome.status == 2)
        let document = try XMLDocument(contentsOf: workspace.url.appendingPathComponent("report.xml"), options: [])
        let cases = try #require(document.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase"))
        #expect(cases.count == 4)
        #expect(cases.map { $0.elements(forName: "failure").count } == [1, 1, 1, 0])
        let names = cases.compactMap { $0.attribute(forName: "name")?.stringValue }
        #expect(names.count == 4 && names.allSatisfy { !$0.contains("\u{1B}") && !$0.contains("\0") })
    }

    /// A side effect that dispatches without end comes back to the case only at the side effect's time
    /// limit (the host's default, 30 s; the instruction budget counts only between two awaits), where
    /// it fails: `moonblade test` prints nothing for that long. Left as a known issue: the runner has no
    /// shorter limit per case (what a fix would decide: a limit's default for specs, and what becomes
    /// of the abandoned store's work while the next cases run).
    @Test func aCaseWhoseSideEffectNeverEndsEndsTheRun() async throws {
        try workspace.plugin("loop", """
            return {
              name = "loop",
              updaters = { add = function(s) s.n = (s.n or 0) + 1 end },
              side_effects = { spin = function(ctx) while true do ctx.dispatch("loop.add") end end },
            }
            """)
        try workspace.file("loop/spec/loop_spec.lua", """
            it("spins", function() dispatch("loop.spin") end)
            it("next", function() end)
            """)
        let running = try RunningMoonblade(["test", "loop"], in: workspace.url)
        await withKnownIssue("a case whose side effect dispatches without end holds moonblade test up for the side effect's time limit, 30 s") {
            try await running.waitUntil("the run's summary", timeout: .seconds(2)) { stdout, _ in stdout.contains(" failed") }
        }
    }
}
