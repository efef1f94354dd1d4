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
        #expect(outcome.stdout == "ok\nok\ntotal: 6 → 7\n{\"total\":7}\n(the state did not change)\nok\n")
        #expect(outcome.stderr == "error: usage: diff N, or diff on|off (N: a dispatch number from history)\n")
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

    /// `diff on` and `diff N` print one format, the journal's, with Lua's positions: they printed
    /// `~ state.total: 6 -> 7` and `total: 6 → 7`, and journal paths counted from 0.
    @Test func diffOnAndDiffNPrintOneFormat() async throws {
        let list = try workspace.plugin(
            "list", #"return { name = "list", updaters = { push = function(s, p) s.items[#s.items + 1] = p.item end } }"#)
        try workspace.file("start.json", #"{"items": ["a"]}"#)
        let outcome = try await workspace.run(
            "repl", list, "--no-watch", "--state", "start.json", input: "diff on\nlist.push {\"item\": \"b\"}\ndiff 0\n")
        #expect(outcome.stderr == "")
        #expect(outcome.stdout == "ok\nitems[2]: (absent) → \"b\"\nitems[2]: (absent) → \"b\"\n")
    }

    /// A line that names no item is answered with the loaded items, not a `counter.increment` no
    /// plugin defines.
    @Test func aMistypedLineNamesTheLoadedItems() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let outcome = try await workspace.run("repl", tally, "--no-watch", input: "talyadd\nzzz\n")
        #expect(
            outcome.stderr == """
                error: expected an item name (plugin.item), found "talyadd"; did you mean tally.add?
                error: expected an item name (plugin.item), found "zzz"; items: tally.add, tally.fail, tally.report

                """)
    }

    /// The history lives where the environment says: it was under the user database's home whatever
    /// `$HOME` said.
    @Test func theHistoryFileFollowsTheEnvironment() {
        #expect(LineEditor.historyFile(environment: ["HOME": "/home/ada"]) == "/home/ada/.moonblade_history")
        #expect(
            LineEditor.historyFile(environment: ["HOME": "/home/ada", "XDG_STATE_HOME": "/home/ada/.state"])
                == "/home/ada/.state/moonblade/history")
        #expect(LineEditor.historyFile(environment: ["HOME": "/home/ada", "XDG_STATE_HOME": "relative"]) == "/home/ada/.moonblade_history")
    }

    /// `script` gives the repl a pseudo-terminal: keys go in as typed, Ctrl-C as a key.
    static let script: String? = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts `moonblade arguments…` under `script`: keys written to the pipe are typed, and the
    /// screen (standard output and error together) goes to the output's stdout file.
    func onATerminal(_ arguments: [String]) throws -> (Process, Pipe, OutputFiles) {
        let command = ([MoonbladeProcess.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
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
        return (process, keys, output)
    }

    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func onATerminalLinesAreEditedRememberedAndCancelled() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let history = workspace.url.appendingPathComponent("history").path
        let (process, keys, output) = try onATerminal(["repl", tally, "--history", history, "--save", "end.json", "--no-watch"])
        func type(_ text: String, thenWaitFor prompts: Int) async throws {
            try keys.fileHandleForWriting.write(contentsOf: Data(text.utf8))
            await waitUntil { ((try? output.read().stdout) ?? "").components(separatedBy: "moonblade> ").count > prompts }
        }
        try await type("", thenWaitFor: 1)
        try await type("tally.x\u{7F}add\r", thenWaitFor: 2)  // a typo, a backspace, the rest
        try await type("tally.fa\u{03}", thenWaitFor: 3)  // Ctrl-C: the line is dropped
        try await type("\u{1B}[A\r", thenWaitFor: 4)  // up arrow: tally.add again
        try keys.fileHandleForWriting.write(contentsOf: Data("quit\r".utf8))
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
        let remembered = try String(contentsOfFile: history, encoding: .utf8)
        #expect(remembered.contains("tally.add\n"))
        #expect(!remembered.contains("tally.fa"))
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(try workspace.read("end.json").utf8))
        let screen = try output.read()
        #expect(saved == ["total": 2], "\(screen)")
    }

    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func ctrlCStopsADispatchThatAwaitsSwiftAndTheSessionGoesOn() async throws {
        // A side effect that awaits Swift for a minute by the clock (an await that answers at once costs
        // microseconds, so a count of them runs anywhere from seconds to a quarter hour, sanitized),
        // never holding the VM for long: Ctrl-C stops its Lua when it runs again between two awaits.
        let slow = try workspace.plugin(
            "slow",
            """
            return { name = "slow", side_effects = {
              crawl = function(ctx)
                local stop = ctx.deps.clock.now() + 60 while ctx.deps.clock.now() < stop do end
              end,
            } }
            """)
        let (process, keys, output) = try onATerminal(["repl", slow, "--no-watch", "--history", "h"])
        func screen() -> String { (try? output.read().stdout) ?? "" }
        await waitUntil { screen().contains("moonblade> ") }
        try keys.fileHandleForWriting.write(contentsOf: Data("slow.crawl\r".utf8))
        // Ctrl-C from a thread of its own once the side effect runs, before its 30 s limit whatever the load.
        let (typing, stdout) = (keys.fileHandleForWriting, output.stdout)
        onAThreadOfItsOwn(
            once: { (try? String(contentsOf: stdout, encoding: .utf8))?.contains("slow.crawl\r\n") == true },
            after: .milliseconds(200)
        ) {
            try? typing.write(contentsOf: Data("\u{03}".utf8))
        }
        await waitUntil(timeout: .seconds(10)) { screen().contains("error: slow.crawl: slow/plugin.lua:3: interrupted") }
        try keys.fileHandleForWriting.write(contentsOf: Data("state\r".utf8))
        await waitUntil { screen().contains("{}") }
        try keys.fileHandleForWriting.write(contentsOf: Data("quit\r".utf8))
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
    }
}
