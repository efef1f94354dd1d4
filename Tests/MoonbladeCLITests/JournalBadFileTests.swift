import Foundation
import Testing

/// A careless user points the commands at the wrong file: each is exit code 7 with the file and what
/// is wrong on one line, and the file is left as it was.
@Suite("moonblade journal commands on bad files")
struct JournalBadFileTests {
    let workspace = Workspace()

    @Test func eachCommandRefusesEachBadFileAndLeavesItAlone() async throws {
        try FileManager.default.createDirectory(at: workspace.url.appendingPathComponent("folder.journal"), withIntermediateDirectories: true)
        try workspace.file("short.journal", "SQLite format 3")
        try workspace.file("empty.journal", "")
        let cases: [(file: String, problem: String, readersOnly: Bool)] = [
            ("folder.journal", "cannot be opened (it is a directory)", false),
            ("short.journal", "is cut short (15 bytes, less than an SQLite header): not a whole journal", false),
            ("missing.journal", "no such file", true),
            // An empty file is a new journal for `run`, and nothing to read for the others.
            ("empty.journal", "is empty: no journal in it", true),
        ]
        for (file, problem, readersOnly) in cases {
            var commands = [
                ["journal", "check", file],
                ["replay", file, "--plugins", shippedPlugin("counter")],
                ["journal", "to-spec", file, "--plugin", "counter"],
            ]
            if !readersOnly { commands.append(["run", shippedPlugin("counter"), "--journal", file]) }
            for arguments in commands {
                let outcome = try await MoonbladeProcess.run(arguments, in: workspace.url)
                #expect(outcome.status == 7, "\(arguments)")
                #expect(outcome.stderr == "error: journal \(file): \(problem)\n", "\(arguments)")
                #expect(outcome.stdout == "", "\(arguments)")
            }
        }
        #expect(try workspace.read("short.journal") == "SQLite format 3")
        #expect(try workspace.read("empty.journal") == "")
        #expect(!FileManager.default.fileExists(atPath: workspace.url.appendingPathComponent("missing.journal").path))
    }

    @Test func aSecondRunOnAJournalInUseIsRefused() async throws {
        let running = try RunningMoonblade(
            ["run", shippedPlugin("counter"), "--journal", "app.journal", "--watch", "--print-state"], in: workspace.url)
        try running.send("counter.increment")
        try await running.waitUntil("the first dispatch") { stdout, _ in stdout.contains("\"counter\"") }
        let second = try await workspace.run("run", shippedPlugin("counter"), "--journal", "app.journal", "--dispatch", "counter.increment")
        #expect(second.status == 7)
        #expect(second.stderr == "error: journal app.journal: is in use by another journal (one writer per file; close it first)\n")
        // Reading it meanwhile works.
        let check = try await workspace.run("journal", "check", "app.journal")
        #expect(check.status == 0, "\(check.stderr)")
        let finished = try await running.finish()
        #expect(finished.status == 0)
        let after = try await workspace.run("run", shippedPlugin("counter"), "--journal", "app.journal")
        #expect(try after.json() == ["counter": 1])
    }
}
