import Foundation
import FoundationXML
import Testing

@Suite("moonblade test")
struct TestCommandTests {
    let workspace = Workspace()

    /// A plugin `sum` with a spec of two cases, the second wrong on purpose at line 8 (its name has
    /// characters XML must escape).
    private func sumPluginWithAWrongSpec() throws {
        try workspace.plugin(
            "sum",
            """
            return {
              name = "sum",
              updaters = { add = function(state, p) state.total = (state.total or 0) + p.by end },
            }
            """)
        try workspace.file(
            "sum/spec/sum_spec.lua",
            """
            describe("sum.add", function()
              it("adds", function()
                dispatch("sum.add", { by = 2 })
                assert.are.same({ total = 2 }, state())
              end)
              it("is <wrong> & \\"says\\" so", function()
                dispatch("sum.add", { by = 2 })
                assert.are.same({ total = 3 }, state())
              end)
            end)
            """)
    }

    @Test func passesOnTheShippedPlugins() async throws {
        let outcome = try await workspace.run(
            "test", shippedPlugin("counter"), shippedPlugin("todo"), shippedPlugin("cart"))
        #expect(outcome.status == 0)
        #expect(outcome.stderr == "")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let cases = lines.dropLast()
        for plugin in ["counter", "todo", "cart"] {
            #expect(cases.contains { $0.hasPrefix("ok   \(plugin): ") })
        }
        #expect(cases.allSatisfy { $0.hasPrefix("ok   ") })
        #expect(lines.last == "\(cases.count) passed, 0 failed")
    }

    @Test func aFolderOfPluginsStandsForEachOfThem() async throws {
        let outcome = try await workspace.run("test", URL(fileURLWithPath: shippedPlugin("counter")).deletingLastPathComponent().path)
        #expect(outcome.status == 0)
        for plugin in ["counter", "todo", "cart"] {
            #expect(outcome.stdout.contains("ok   \(plugin): "))
        }
    }

    @Test func aFailingCaseIsReportedWithItsPlaceAndExits2() async throws {
        try sumPluginWithAWrongSpec()
        let outcome = try await workspace.run("test", "sum")
        #expect(outcome.status == 2)
        #expect(
            outcome.stdout == """
                ok   sum: sum.add adds
                FAIL sum: sum.add is <wrong> & "says" so — sum/spec/sum_spec.lua:8: assert.are.same: values differ at total
                       expected: { total = 3 }
                       actual:   { total = 2 }
                1 passed, 1 failed\n
                """)
    }

    /// `--watch` runs the specs again when a spec or the plugin changes, telling the exit status a run
    /// without it would have had, and keeps watching after a run that fails.
    @Test func watchRunsTheSpecsAgainWhenASpecOrThePluginChanges() async throws {
        try sumPluginWithAWrongSpec()
        let running = try RunningMoonblade(["test", "sum", "--watch"], in: workspace.url)
        try await running.waitUntil("the first run") { stdout, stderr in
            stdout.contains("1 passed, 1 failed") && stderr.contains("(exit status 2 without --watch)")
                && stderr.contains("watching for changes")
        }
        let spec = try workspace.read("sum/spec/sum_spec.lua")
        try workspace.file("sum/spec/sum_spec.lua", spec.replacingOccurrences(of: "total = 3", with: "total = 2"))
        try await running.waitUntil("a run after the spec changed") { stdout, _ in stdout.contains("2 passed, 0 failed") }
        try workspace.plugin(
            "sum", "return { name = 'sum', updaters = { add = function(state, p) state.total = (state.total or 0) + 2 * p.by end } }")
        try await running.waitUntil("a run after the plugin changed") { stdout, _ in stdout.contains("0 passed, 2 failed") }
        running.send(signal: SIGINT)
        _ = try await running.waitForExit()
    }

    @Test func junitWritesEachCaseAndTheFailureWithItsDetails() async throws {
        try sumPluginWithAWrongSpec()
        let outcome = try await workspace.run(
            "test", "sum", shippedPlugin("counter"), "--junit", "report.xml")
        #expect(outcome.status == 2)
        #expect(try workspace.contents().contains("report.xml"))

        let document = try XMLDocument(
            contentsOf: workspace.url.appendingPathComponent("report.xml"), options: [])
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.compactMap { $0.attribute(forName: "name")?.stringValue } == ["counter", "sum"])
        #expect(suites.map { $0.attribute(forName: "failures")?.stringValue } == ["0", "1"])

        let sumCases = suites[1].elements(forName: "testcase")
        #expect(sumCases.map { $0.attribute(forName: "name")?.stringValue } == ["sum.add adds", #"sum.add is <wrong> & "says" so"#])
        #expect(sumCases[0].elements(forName: "failure").isEmpty)
        let wrong = sumCases[1]
        #expect(wrong.attribute(forName: "classname")?.stringValue == "sum.sum_spec")
        #expect(wrong.attribute(forName: "file")?.stringValue == "sum/spec/sum_spec.lua")
        #expect(wrong.attribute(forName: "line")?.stringValue == "6")
        let failure = try #require(wrong.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue == "assert.are.same: values differ at total")
        #expect(
            failure.stringValue == """
                sum/spec/sum_spec.lua:8: assert.are.same: values differ at total
                  expected: { total = 3 }
                  actual:   { total = 2 }
                """)
    }

    @Test func junitKeepsTabsAndLineBreaksInAttributes() async throws {
        try workspace.plugin("bare", "return { name = \"bare\" }")
        try workspace.file("bare/spec/bare_spec.lua", #"describe("bare", function() it("a\ttab and\na line break", function() end) end)"#)
        let outcome = try await workspace.run("test", "bare", "--junit", "report.xml")
        #expect(outcome.status == 0)

        // A parser turns a tab or line break written as such in an attribute into a space.
        let document = try XMLDocument(
            contentsOf: workspace.url.appendingPathComponent("report.xml"), options: [])
        let testcase = try #require(document.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase").first)
        #expect(testcase.attribute(forName: "name")?.stringValue == "bare a\ttab and\na line break")
    }

    @Test func aJUnitFileThatCannotBeWrittenExits4() async throws {
        let outcome = try await workspace.run("test", shippedPlugin("counter"), "--junit", "no-such-dir/report.xml")
        #expect(outcome.status == 4)
        #expect(outcome.stderr.contains("no-such-dir/report.xml"))
    }

    @Test func aFolderWithoutSpecsExits5() async throws {
        try workspace.plugin("bare", "return { name = \"bare\" }")
        let outcome = try await workspace.run("test", "bare", shippedPlugin("counter"))
        #expect(outcome.status == 5)
        #expect(outcome.stderr.contains("error: no spec case in bare"))
        #expect(outcome.stdout.contains("ok   counter: "))
    }

    @Test func aMissingFolderIsReportedAsSuchAndExits4BeforeAnyCaseRuns() async throws {
        let outcome = try await workspace.run("test", "typo", shippedPlugin("counter"))
        #expect(outcome.status == 4)
        #expect(outcome.stderr == "error: no such folder: typo\n")
        #expect(outcome.stdout == "")
    }

    @Test func aSpecFileThatDoesNotLoadIsAFailingCase() async throws {
        try workspace.plugin("bare", "return { name = \"bare\" }")
        try workspace.file("bare/spec/bare_spec.lua", "describe(\"x\", function()\n  it(\n")
        let outcome = try await workspace.run("test", "bare")
        #expect(outcome.status == 2)
        #expect(outcome.stdout.contains("FAIL bare: bare_spec.lua — "))
        #expect(outcome.stdout.contains("bare_spec.lua:3:"))
    }
}

@Suite("moonblade test --junit with hostile names")
struct JUnitHostileNameTests {
    let workspace = Workspace()

    @Test func theReportParsesWhateverTheNamesAndMessagesHold() async throws {
        try workspace.plugin("odd", "return { name = \"odd\" }")
        // Markup, quotes, a CDATA end, emoji, noncharacters, control characters and a byte that is not UTF-8.
        try workspace.file(
            "odd/spec/odd_spec.lua",
            #"""
            describe("<b>&amp;\"'</b> ]]> ünï 🚀", function()
              it("nonchars \u{FFFE}\u{FFFF} ctl \1\27 bad \255 end", function() error("<&\"> ]]> \u{FFFF}\2 ü") end)
              pending("pending <&>")
            end)
            """#)
        let outcome = try await workspace.run("test", "odd", "--junit", "report.xml")
        #expect(outcome.status == 2)
        let document = try XMLDocument(contentsOf: workspace.url.appendingPathComponent("report.xml"), options: [])
        let cases = try #require(document.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase"))
        #expect(cases.count == 2)
        let names = cases.compactMap { $0.attribute(forName: "name")?.stringValue }
        #expect(
            names == [
                "<b>&amp;\"'</b> ]]> ünï 🚀 nonchars \u{FFFD}\u{FFFD} ctl \u{FFFD}\u{FFFD} bad \u{FFFD} end",
                "<b>&amp;\"'</b> ]]> ünï 🚀 pending <&>",
            ])
        let failure = try #require(cases[0].elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue == "<&\"> ]]> \u{FFFD}\u{FFFD} ü")
        #expect(cases[1].elements(forName: "skipped").count == 1)
    }
}
