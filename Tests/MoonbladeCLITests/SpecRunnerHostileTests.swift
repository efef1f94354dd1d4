import Foundation
import FoundationXML
import Testing

/// `moonblade test` on specs that hold every byte in their names and messages, and on a case whose
/// side effect never ends.
@Suite("moonblade test with hostile specs")
struct SpecRunnerHostileTests {
    let workspace = Workspace()

    /// Every byte, `]]>` and markup in names, in raised strings and tables, in a pending case and in
    /// a file that fails as it loads: the report parses, with one testcase per case.
    @Test func theJUnitReportParsesWithEveryByteInNamesAndMessages() async throws {
        let bytes = (0...255).map { "\\\($0)" }.joined()
        try workspace.plugin("odd", "return { name = \"odd\" }")
        try workspace.file(
            "odd/spec/bytes_spec.lua",
            """
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

    /// A side effect that dispatches without end never lets the case's `dispatch` return (the
    /// instruction budget counts only between two awaits): the side effect's time limit ends it, the
    /// case fails with that limit error at the dispatch's line, and the next case runs.
    /// `--side-effect-time-limit` makes that wait short (the host's 30 s otherwise).
    @Test func aCaseWhoseSideEffectNeverEndsFailsAtTheTimeLimitAndTheRunGoesOn() async throws {
        try workspace.plugin(
            "loop",
            """
            return {
              name = "loop",
              updaters = { add = function(s) s.n = (s.n or 0) + 1 end },
              side_effects = { spin = function(ctx) while true do ctx.dispatch("loop.add") end end },
            }
            """)
        try workspace.file(
            "loop/spec/loop_spec.lua",
            """
            it("spins", function()
              dispatch("loop.spin")
            end)
            it("next", function() end)
            """)
        let outcome = try await workspace.run("test", "loop", "--side-effect-time-limit", "0.3")
        #expect(outcome.status == 2)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("FAIL loop: spins") && $0.contains("loop_spec.lua:2:") && $0.contains("time limit of 0.3") })
        #expect(lines.contains("ok   loop: next"))
        #expect(lines.last == "1 passed, 1 failed")
    }

    /// A time limit that is no positive number of seconds is refused before any case runs.
    @Test(arguments: ["0", "-1", "nan", "inf"])
    func aSideEffectTimeLimitThatIsNoPositiveNumberIsRefused(_ limit: String) async throws {
        try workspace.plugin("loop", "return { name = \"loop\" }")
        try workspace.file("loop/spec/loop_spec.lua", "it(\"runs\", function() end)")
        let outcome = try await workspace.run("test", "loop", "--side-effect-time-limit=\(limit)")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--side-effect-time-limit must be a positive number of seconds"))
        #expect(!outcome.stdout.contains("ok   loop: runs"))
    }
}
