import Foundation
import MoonbladeHost
import Testing

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
