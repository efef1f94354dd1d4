import Foundation
import MoonbladeTestSupport
import Testing

/// The repl on a pseudo-terminal: Tab completion, messages that come while a line is typed, and
/// Ctrl-C on a dispatch that runs away (the terminal sends the repl SIGINT).
extension ReplEditingTests {
    /// Tab completes an item name and a command; several candidates are listed. There was no
    /// completion: a Tab was inserted into the line, which then named no item.
    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func tabCompletesItemsAndCommands() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let (process, keys, output) = try onATerminal(["repl", tally, "--no-watch", "--history", "h"])
        func screen() -> String { (try? output.read().stdout) ?? "" }
        func type(_ text: String) throws { try keys.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }
        await waitUntil { screen().contains("moonblade> ") }
        // libedit draws a completion by moving the cursor, so what shows is what the line then does.
        try type("tally.a\t\r")
        await waitUntil { screen().contains("\nok\r\n") }
        try type("tally.\t")  // three items start so: listed, the line kept
        await waitUntil { screen().contains("tally.fail") && screen().contains("tally.report") }
        try type("r\t\r")
        await waitUntil { screen().contains("{\"total\":1}") }
        try type("sta\t\r")
        await waitUntil { screen().contains("\"total\": 1\n") || screen().contains("\"total\": 1\r\n") }
        try type("quit\r")
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
        #expect(!screen().contains("error:"), "\(screen())")
    }

    /// A reload reported while a line is half typed goes above it, and the prompt and the line come
    /// back below: the message landed after the prompt, and the line went on with no prompt.
    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func aMessageWhileALineIsTypedGoesAboveItAndThePromptComesBack() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let (process, keys, output) = try onATerminal(["repl", tally, "--history", "h"])
        func screen() -> String { (try? output.read().stdout) ?? "" }
        func type(_ text: String) throws { try keys.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }
        await waitUntil { screen().contains("moonblade> ") }
        try type("tally.ad")
        await waitUntil { screen().contains("tally.ad") }
        try workspace.file("tally/plugin.lua", tallyPlugin.replacingOccurrences(of: "tally refuses", with: "no"))
        await waitUntil { screen().contains("reloaded tally") }
        // Below the message: the prompt and the half-typed line, drawn again.
        await waitUntil {
            screen().components(separatedBy: "reloaded tally").last?.contains("moonblade> tally.ad") == true
        }
        try type("d\r")  // the line goes on as typed
        await waitUntil { screen().components(separatedBy: "reloaded tally").last?.contains("\nok\r\n") == true }
        try type("quit\r")
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
        #expect(!screen().contains("error:"), "\(screen())")
    }

    /// An endless Lua loop in a side effect: Ctrl-C printed "no longer waiting" and left it holding a
    /// core until its 30 s limit, its failure never reported. Now its Lua stops at the next check of
    /// the limits, the failure names the item and the line, the state is as it was, and the process
    /// stops using the CPU.
    @Test(.enabled(if: script != nil, "script (util-linux) is not installed: no pseudo-terminal to test with"))
    func ctrlCStopsARunawaySideEffectAndReportsIt() async throws {
        let spin = try workspace.plugin(
            "spin",
            """
            return { name = "spin", updaters = { add = function(s) s.n = (s.n or 0) + 1 end },
              side_effects = {
                forever = function(ctx)
                  local n = 0
                  while true do n = n + 1 end
                end,
              } }
            """)
        let (process, keys, output) = try onATerminal(["repl", spin, "--no-watch", "--history", "h"])
        func screen() -> String { (try? output.read().stdout) ?? "" }
        await waitUntil { screen().contains("moonblade> ") }
        try keys.fileHandleForWriting.write(contentsOf: Data("spin.add\r".utf8))
        await waitUntil { screen().components(separatedBy: "moonblade> ").count > 2 }
        try keys.fileHandleForWriting.write(contentsOf: Data("spin.forever\r".utf8))
        let (typing, stdout) = (keys.fileHandleForWriting, output.stdout)
        onAThreadOfItsOwn(
            once: { (try? String(contentsOf: stdout, encoding: .utf8))?.contains("spin.forever\r\n") == true },
            after: .milliseconds(200)
        ) {
            try? typing.write(contentsOf: Data("\u{03}".utf8))
        }
        // Well inside the side effect's 30 s time limit, which would end the loop (with another
        // message) if Ctrl-C did not; the interrupt itself takes one check of the limits.
        await waitUntil(timeout: .seconds(20)) { screen().contains("error: spin.forever: spin/plugin.lua:5: interrupted") }
        // The core comes back: over two seconds the process uses a small share of one, where the loop
        // left running would use most of it (or, on a machine this loaded, at least a fair share).
        if let pid = Self.processID(withArgument: spin) {
            let before = Self.cpuSeconds(of: pid)
            try await Task.sleep(for: .seconds(2))
            let used = Self.cpuSeconds(of: pid) - before
            #expect(used < 0.3, "the repl used \(used) s of CPU in 2 s after the interrupt")
        } else {
            Issue.record("no moonblade process with argument \(spin) in /proc")
        }
        try keys.fileHandleForWriting.write(contentsOf: Data("state\r".utf8))
        await waitUntil { screen().contains("\"n\": 1") }
        try keys.fileHandleForWriting.write(contentsOf: Data("spin.add\r".utf8))
        try keys.fileHandleForWriting.write(contentsOf: Data("state\r".utf8))
        await waitUntil { screen().contains("\"n\": 2") }  // plugin code runs again after the interrupt
        try keys.fileHandleForWriting.write(contentsOf: Data("quit\r".utf8))
        await MoonbladeProcess.waitForExit(process, arguments: ["script", "repl"])
        #expect(!screen().contains("time limit"), "\(screen())")
    }

    /// The process (not `script`, not its shell) whose command line has `argument`.
    static func processID(withArgument argument: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.first?.hasSuffix("/moonblade") == true, words.contains(argument) { return pid }
        }
        return nil
    }

    /// The user and system CPU time process `pid` has used, in seconds (`/proc/PID/stat`).
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command's name in parentheses: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
