import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

@Suite("moonblade run --journal, journal, replay")
struct JournalCommandTests {
    let workspace = Workspace()

    /// `--until`'s default is the last entry, said so: the help printed 9223372036854775807.
    @Test(arguments: [["journal", "log"], ["journal", "to-spec"], ["replay"]])
    func theHelpSaysUntilTheLastEntry(command: [String]) async throws {
        let outcome = try await workspace.run(command + ["--help"])
        #expect(outcome.stdout.contains("(default: the last)"), "\(outcome.stdout)")
        #expect(!outcome.stdout.contains("9223372036854775807"))
    }

    /// Every dispatch that resolved under --strict-journal is in the journal after a SIGKILL.
    @Test func aKilledRunLosesNoResolvedDispatch() async throws {
        let running = try RunningMoonblade(
            ["run", shippedPlugin("counter"), "--journal", "app.journal", "--strict-journal", "--watch", "--print-state"],
            in: workspace.url)
        // Far more lines than it applies before the kill: it is dispatching when it dies.
        for _ in 0..<400 {
            try running.send("counter.increment")
        }
        try await running.waitUntil("30 applied dispatches") { stdout, _ in
            stdout.split(separator: "\n").count >= 30
        }
        let killed = try await running.kill()
        #expect(killed.status == SIGKILL)
        let resolved = killed.stdout.split(separator: "\n").compactMap { line in
            try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))["counter"]
        }
        guard case .integer(let lastResolved)? = resolved.last else {
            Issue.record("no state printed before the kill: \(killed.stdout)")
            return
        }

        let check = try await workspace.run("journal", "check", "app.journal")
        #expect(check.status == 0, "\(check.stderr)")
        let restarted = try await workspace.run("run", shippedPlugin("counter"), "--journal", "app.journal")
        #expect(restarted.status == 0, "\(restarted.stderr)")
        guard case .integer(let recovered)? = try restarted.json()["counter"] else {
            Issue.record("no counter after the restart: \(restarted.stdout)")
            return
        }
        #expect(recovered >= lastResolved)
        #expect(recovered <= 400)
        // Recovery is the recorded state: the journal holds exactly that many increments.
        let journal = try Journal.existing(at: workspace.url.appendingPathComponent("app.journal").path)
        #expect(try journal.entries().count == Int(recovered))
    }

    @Test func aRunGoesOnFromWhereTheLastOneStopped() async throws {
        let first = try await workspace.run(
            "run", shippedPlugin("counter"), "--journal", "app.journal", "--dispatch", "counter.increment", #"{"by": 5}"#)
        #expect(first.status == 0)
        let second = try await workspace.run(
            "run", shippedPlugin("counter"), "--journal", "app.journal", "--dispatch", "counter.increment")
        #expect(try second.json() == ["counter": 6])
        let check = try await workspace.run("journal", "check", "app.journal")
        #expect(check.stdout == "app.journal: ok (entries: 2, last: 2, snapshots: 3)\n")
    }

    /// A journal recorded under version 1 of a plugin, resumed with version 2: its `migrate` runs on the
    /// state first; when it fails, the run does not start (exit 3, the error with its place) and the
    /// journal stays as it was.
    @Test func aRunMigratesTheJournalsStateOrRefusesToStart() async throws {
        func step(version: Int, migrate: String) throws -> String {
            try workspace.plugin(
                "step",
                "return { name = \"step\", version = \(version), updaters = { add = function(s) s.count = s.count + 1 end },\n"
                    + "  migrate = \(migrate) }")
        }
        let recorded = try await workspace.run(
            "run", try workspace.plugin("step", #"return { name = "step", updaters = { add = function(s) s.total = (s.total or 0) + 1 end } }"#),
            "--journal", "app.journal", "--dispatch", "step.add")
        #expect(try recorded.json() == ["total": 1])

        let refused = try await workspace.run(
            "run", try step(version: 2, migrate: #"function(s) error("total is " .. s.total) end"#), "--journal", "app.journal")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("error: step.migrate: step/plugin.lua:2: total is 1"), "\(refused.stderr)")
        let migrated = try await workspace.run(
            "run", try step(version: 2, migrate: "function(s) s.count = s.total; s.total = nil end"), "--journal", "app.journal",
            "--dispatch", "step.add")
        #expect(try migrated.json() == ["count": 2])
    }

    @Test func aStateFileCannotOverrideAJournalsState() async throws {
        _ = try await workspace.run(
            "run", shippedPlugin("counter"), "--journal", "app.journal", "--dispatch", "counter.increment")
        try workspace.file("start.json", #"{"counter": 10}"#)
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--journal", "app.journal", "--state", "start.json")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--state: the journal app.journal already holds a state"))
    }

    @Test func aCorruptedJournalIsAClearErrorEverywhere() async throws {
        try workspace.file("bad.journal", String(repeating: "garbage ", count: 512))
        for arguments in [
            ["journal", "check", "bad.journal"],
            ["run", shippedPlugin("counter"), "--journal", "bad.journal"],
            ["replay", "bad.journal", "--plugins", shippedPlugin("counter")],
            ["journal", "to-spec", "bad.journal", "--plugin", "counter"],
        ] {
            let outcome = try await MoonbladeProcess.run(arguments, in: workspace.url)
            #expect(outcome.status == 7, "\(arguments)")  // a journal problem
            #expect(outcome.stderr == "error: journal bad.journal: is not a journal (not an SQLite database)\n")
            #expect(outcome.stdout == "")
        }
        #expect(try workspace.read("bad.journal").hasPrefix("garbage"))
    }

    @Test func replayReportsTheFirstDivergenceWithItsOwnExitCode() async throws {
        let tally = try workspace.plugin(
            "tally", #"return { name = "tally", updaters = { add = function(s, p) s.n = (s.n or 0) + p.by end } }"#)
        _ = try await workspace.run(
            "run", tally, "--journal", "app.journal", "--dispatch", "tally.add", #"{"by": 1}"#, "--dispatch", "tally.add",
            #"{"by": 2}"#)
        let same = try await workspace.run("replay", "app.journal", "--plugins", tally)
        #expect(same.status == 0)
        #expect(same.stdout == "replayed 2 updater dispatches, all as recorded (0 other entries skipped)\n")

        try workspace.plugin(
            "tally", #"return { name = "tally", updaters = { add = function(s, p) s.n = (s.n or 0) + p.by * 2 end } }"#)
        let changed = try await workspace.run("replay", "app.journal", "--plugins", tally)
        #expect(changed.status == 8)  // replay diverged
        #expect(changed.stdout == "diverged at 1: tally.add {\"by\":1}\n  n: 1 (recorded) → 2 (replayed)\n(matched before it: 0)\n")
        let bounded = try await workspace.run("replay", "app.journal", "--plugins", tally, "--from", "3")
        #expect(bounded.status == 0)
    }

    @Test func toSpecWritesASpecThatMoonbladeTestRuns() async throws {
        let counter = try workspace.plugin("counter", try String(contentsOfFile: shippedPlugin("counter") + "/plugin.lua", encoding: .utf8))
        _ = try await workspace.run(
            "run", counter, "--journal", "app.journal", "--dispatch", "counter.increment", "--dispatch", "counter.reset")
        let written = try await workspace.run(
            "journal", "to-spec", "app.journal", "--plugin", "counter", "--output", "counter/spec/recorded_spec.lua")
        #expect(written.status == 0)
        #expect(written.stdout == "wrote counter/spec/recorded_spec.lua\n")
        let tested = try await workspace.run("test", counter)
        #expect(tested.status == 0)
        #expect(tested.stdout.contains("ok   counter: recorded session of counter replays entries 1 to 2"))
    }

    @Test func theReplTravelsInTime() async throws {
        let outcome = try await workspace.run(
            "repl", shippedPlugin("counter"), "--no-watch",
            input: "counter.increment\ncounter.increment {\"by\": 10}\ngoto 1\nstate\ndiff 2\nhistory\nundo\nundo\nhistory 1\ngoto 50\ndiff\n")
        #expect(
            outcome.stdout == """
                ok
                ok
                at 1
                {
                  "counter": 1
                }
                counter: 11 → 1
                *   1  counter.increment  counter v1  counter = 1
                    2  counter.increment {"by":10}  counter v1  counter = 11
                    3  goto 1  counter = 1
                back at 0
                    4  goto 0  counter removed

                """)
        #expect(
            outcome.stderr == """
                error: journal :memory:: nothing to undo
                error: journal :memory:: no entry 50 (the journal goes from 0 to 4)
                error: usage: diff N, or diff on|off (N: a dispatch number from history)

                """)
    }
}
