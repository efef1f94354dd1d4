import Foundation
import MoonbladeHost
import Testing

/// The command line forgives order and slips: plugin folders after the options, a near miss of an item
/// or command named with its likely meaning, a side effect's result shown.
@Suite("Folders anywhere, did you mean, results")
struct CommandLineShapeTests {
    let workspace = Workspace()

    @Test func pluginFoldersMayFollowTheDispatches() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let after = try await workspace.run("run", "--dispatch", "tally.add", #"{"by": 4}"#, "tally")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try after.json() == ["total": 4])
        let bare = try await workspace.run("run", "--dispatch", "tally.add", tally)
        #expect(try bare.json() == ["total": 1])
        let posted = try await workspace.run("run", "--post", "app.ping", "tally")
        #expect(posted.status == 0, "\(posted.stderr)")
        let none = try await workspace.run("run", "--dispatch", "tally.add")
        #expect(none.status == 64)
        #expect(none.stderr.contains("Missing expected argument '<plugins> ...'"), "\(none.stderr)")
    }

    @Test func anUnknownItemNamesTheClosestOne() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let outcome = try await workspace.run("run", tally, "--dispatch", "tally.ad")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no such item is registered; did you mean tally.add?"), "\(outcome.stderr)")
        let far = try await workspace.run("run", tally, "--dispatch", "other.thing")
        #expect(far.stderr.contains("no such item is registered") && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test func anUnknownCommandNamesTheClosestOne() async throws {
        let outcome = try await workspace.run("rnu", "tally")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.hasPrefix("error: no command rnu; did you mean run? (commands: run, repl, "), "\(outcome.stderr)")
        let help = try await workspace.run("help")
        #expect(help.status == 0)
    }

    @Test func aSideEffectsResultIsPrinted() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let outcome = try await workspace.run("run", tally, "--dispatch", "tally.add", "--dispatch", "tally.report")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix(#"{"total":1}"# + "\n{\n"), "\(outcome.stdout)")
    }
}
