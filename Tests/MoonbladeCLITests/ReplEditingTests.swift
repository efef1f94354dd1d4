import Foundation
import MoonbladeHost
import Testing

@testable import moonblade

/// The repl as a person at a terminal meets it: --state and --save, `diff on`, and, through a
/// pseudo-terminal, libedit's line editing, history file and Ctrl-C cancelling a line.
@Suite("moonblade repl editing")
struct ReplEditingTests {
    let workspace = Workspace()

    @Test func startsFromStateSavesAtTheEndAndShowsDiffs() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        try workspace.file("start.json", #"{"total": 5, "note": "kept", "old": [1, 2]}"#)
        let input = "tally.add\ndiff on\ntally.add\ntally.report\ndiff maybe\ndiff off\ntally.add\n"
        let outcome = try await workspace.run("repl", tally, "--state", "start.json", "--save", "end.json", input: input)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "ok\nok\n~ state.total: 6 -> 7\n{\"total\":7}\n(the state did not change)\nok\n")
        #expect(outcome.stderr == "error: diff needs on or off: diff on\n")
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(try workspace.read("end.json").utf8))
        #expect(saved == ["total": 8, "note": "kept", "old": [1, 2]])
    }

    @Test func aStateFileThatIsNotAnObjectIsRefused() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        try workspace.file("start.json", "[1]")
        let outcome = try await workspace.run("repl", tally, "--state", "start.json", input: "tally.add\n")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("must hold a JSON object"))
    }

    @Test func diffNamesAddedRemovedAndChangedPlaces() {
        let old: JSONValue = ["a": 1, "gone": "x", "list": [1, 2], "deep": ["b": true]]
        let new: JSONValue = ["a": 2, "new": nil, "list": [1], "deep": ["b": false]]
        #expect(StateDiff.lines(from: old, to: new) == [
            "~ state.a: 1 -> 2", "~ state.deep.b: true -> false", "- state.gone: \"x\"", "- state.list[2]: 2",
            "+ state.new: null",
        ])
    }

    /// `script` gives the repl a pseudo-terminal: keys go in as typed, Ctrl-C as a key.
    static let script: String? = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func onATerminalLinesAreEditedRememberedAndCancelled() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let history = workspace.url.appendingPathComponent("history").path
        let command = [MoonbladeProcess.executable.path, "repl", tally, "--history", history, "--save", "end.json", "--no-watch"]
            .map { "'\($0)'" }.joined(separator: " ")
        let output = try OutputFiles(in: workspace.url)
        let keys = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script!)
        process.arguments = ["-qfec", command, "/dev/null"]
        process.currentDirectoryURL = workspace.url
        process.standardInput = keys
        process.standardOutput = try FileHandle(forWritingTo: output.stdout)
        process.standardError = try FileHandle(forWritingTo: output.stderr)
        try process.run()
        func type(_ text: String, thenWaitFor prompts: Int) async throws {
            keys.fileHandleForWriting.write(Data(text.utf8))
            await waitUntil { ((try? output.read().stdout) ?? "").components(separatedBy: "moonblade> ").count > prompts }
        }
        try await type("", thenWaitFor: 1)
        try await type("tally.x\u{7F}add\r", thenWaitFor: 2)  // a typo, a backspace, the rest
        try await type("tally.fa\u{03}", thenWaitFor: 3)  // Ctrl-C: the line is dropped
        try await type("\u{1B}[A\r", thenWaitFor: 4)  // up arrow: tally.add again
        keys.fileHandleForWriting.write(Data("quit\r".utf8))
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
        let remembered = try String(contentsOfFile: history, encoding: .utf8)
        #expect(remembered.contains("tally.add\n"))
        #expect(!remembered.contains("tally.fa"))
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(try workspace.read("end.json").utf8))
        let screen = try output.read()
        #expect(saved == ["total": 2], "\(screen)")
    }

    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func ctrlCStopsWaitingForADispatchAndTheSessionGoesOn() async throws {
        // A side effect that awaits Swift many thousand times: it runs for many seconds, never holding
        // the VM for long, so only Ctrl-C ends the wait.
        let slow = try workspace.plugin(
            "slow",
            """
            return { name = "slow", side_effects = {
              crawl = function(ctx)
                for i = 1, 1000000 do ctx.deps.clock.now() end
              end,
            } }
            """)
        let command = [MoonbladeProcess.executable.path, "repl", slow, "--no-watch", "--history", "h"]
            .map { "'\($0)'" }.joined(separator: " ")
        let output = try OutputFiles(in: workspace.url)
        let keys = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script!)
        process.arguments = ["-qfec", command, "/dev/null"]
        process.currentDirectoryURL = workspace.url
        process.standardInput = keys
        process.standardOutput = try FileHandle(forWritingTo: output.stdout)
        process.standardError = try FileHandle(forWritingTo: output.stderr)
        try process.run()
        func screen() -> String { (try? output.read().stdout) ?? "" }
        await waitUntil { screen().contains("moonblade> ") }
        keys.fileHandleForWriting.write(Data("slow.crawl\r".utf8))
        await waitUntil { screen().contains("slow.crawl\r\n") }
        try await Task.sleep(for: .milliseconds(200))
        keys.fileHandleForWriting.write(Data("\u{03}".utf8))
        await waitUntil(timeout: .seconds(10)) { screen().contains("interrupted: no longer waiting for slow.crawl") }
        keys.fileHandleForWriting.write(Data("state\r".utf8))
        await waitUntil { screen().contains("{}") }
        keys.fileHandleForWriting.write(Data("quit\r".utf8))
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
    }
}

/// Log lines say which plugin logged, and carry the time when standard error is not a terminal.
@Suite("moonblade log lines")
struct LogLineTests {
    let workspace = Workspace()

    @Test func aPluginsEntryNamesItAndCarriesTheTimeOffATerminal() async throws {
        let stamp = try workspace.plugin(
            "stamp",
            """
            return { name = "stamp", side_effects = {
              note = function(ctx) ctx.deps.log.info { message = "stamped", at = "noon" } end,
            } }
            """)
        let timed = try await workspace.run("run", stamp, "--dispatch", "stamp.note")
        #expect(timed.status == 0)
        #expect(timed.stderr.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z? info \[stamp\] stamped at=noon\n/) != nil, "\(timed.stderr)")
        let plain = try await workspace.run("run", stamp, "--dispatch", "stamp.note", "--no-timestamps")
        #expect(plain.stderr == "info [stamp] stamped at=noon\n")
    }
}

@Suite("moonblade --version and types")
struct VersionAndTypesTests {
    let workspace = Workspace()

    @Test func versionPrintsTheRelease() async throws {
        let outcome = try await workspace.run("--version")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.wholeMatch(of: /moonblade \d+\.\d+\.\d+ \(Lua 5\.4\)\n/) != nil, "\(outcome.stdout)")
    }

    @Test func typesWritesTheDefinitionsAndALuarcPerPlugin() async throws {
        let tally = try workspace.plugin("plugins/tally", tallyPlugin)
        let outcome = try await workspace.run("types", "--out", "editor/types", "plugins")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try workspace.read("editor/types/moonblade.lua").hasPrefix("---@meta moonblade\n"))
        #expect(try workspace.read("editor/types/moonblade_spec.lua").hasPrefix("---@meta moonblade-spec\n"))
        let luarc = try String(contentsOfFile: "\(tally)/.luarc.json", encoding: .utf8)
        #expect(luarc.contains(#""workspace.library": ["../../editor/types"]"#), "\(luarc)")
        let missing = try await workspace.run("types", "--out", "t", "nowhere")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no such folder: nowhere"))
    }
}

@Suite("moonblade run --post")
struct RunPostTests {
    let workspace = Workspace()

    @Test func postFiresNotificationRulesAfterTheDispatches() async throws {
        let shop = try workspace.plugin(
            "shop",
            """
            return {
              name = "shop",
              updaters = {
                open = function(state) state.open = true end,
                restock = function(state, p) state.stock = (state.stock or 0) + p.count end,
              },
              observers = {
                { on_notification = "app.delivery",
                  dispatch = { { "shop.restock", function(delivery) return { count = delivery.count } end } } },
              },
            }
            """)
        let outcome = try await workspace.run(
            "run", shop, "--dispatch", "shop.open", "--post", "app.delivery", #"{"count": 3}"#, "--post", "app.delivery", #"{"count": 2}"#)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try outcome.json() == ["open": true, "stock": 5])
        let bad = try await workspace.run("run", shop, "--post", "app.delivery", "{not json")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--post"), "\(bad.stderr)")
    }
}

@Suite("moonblade test selection and --watch")
struct TestSelectionTests {
    let workspace = Workspace()

    func writeSpec(_ verdict: String) throws {
        try workspace.file("tally/spec/tally_spec.lua", """
            describe("tally", function()
              it("adds #fast", function()
                dispatch("tally.add")
                assert.are.equal(\(verdict), state().total)
              end)
              it("reports #slow", function() assert.are.same({ total = 1 }, (function() dispatch("tally.add"); return dispatch("tally.report") end)()) end)
              pending("forgets")
            end)
            """)
    }

    @Test func filterAndTagsChooseCases() async throws {
        try workspace.plugin("tally", tallyPlugin)
        try writeSpec("1")
        let tagged = try await workspace.run("test", "tally", "--exclude-tags", "slow")
        #expect(tagged.status == 0, "\(tagged.stderr)")
        #expect(tagged.stdout == "ok   tally: tally adds #fast\npend tally: tally forgets\n1 passed, 0 failed, 1 pending\n")
        let filtered = try await workspace.run("test", "tally", "--filter", "rep.rts", "--tags", "slow,fast")
        #expect(filtered.stdout == "ok   tally: tally reports #slow\n1 passed, 0 failed\n")
        let bad = try await workspace.run("test", "tally", "--filter", "(")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("not a regular expression"))
    }

    @Test func watchRunsTheSpecsAgainOnEveryChange() async throws {
        try workspace.plugin("tally", tallyPlugin)
        try writeSpec("1")
        let running = try RunningMoonblade(["test", "tally", "--watch", "--tags", "fast"], in: workspace.url)
        try await running.waitUntil("the first run") { stdout, _ in stdout.contains("1 passed, 0 failed") }
        try writeSpec("2")
        try await running.waitUntil("the run after the change") { stdout, _ in stdout.contains("0 passed, 1 failed") }
    }
}
