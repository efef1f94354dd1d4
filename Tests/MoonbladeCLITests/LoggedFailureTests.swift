import Foundation
import Testing

/// Failures nobody awaits reach only the log; `run` still tells a script with exit code 6, after it
/// has printed or saved the state, unless `--allow-logged-failures`.
@Suite("moonblade run: failures that reach only the log")
struct LoggedFailureTests {
    let workspace = Workspace()

    /// A plugin whose one rule does what `rule` says when `log.kick` is dispatched.
    func plugin(rule: String, extra: String = "") throws -> String {
        try workspace.plugin(
            "log",
            """
            return {
              name = "log",
              updaters = {
                kick = function(state) state.kicks = (state.kicks or 0) + 1 end,
                fail = function() error("the rule's item fails") end,
                again = function(state) state.again = (state.again or 0) + 1 end,
              },
              side_effects = {
                boom = function() error("the start-up fails") end,
              },
              observers = {
                \(rule),
                \(extra)
              },
            }
            """)
    }

    static let cases: [(rule: String, extra: String, logged: String)] = [
        (#"{ on_start = { "log.boom" } }"#, "", "the start-up fails"),
        (#"{ on_dispatch = "log.kick", dispatch = { "log.fail" } }"#, "", "the rule's item fails"),
        (#"{ on_dispatch = "log.kick", dispatch = { "other.missing" } }"#, "", "other.missing"),
        (
            #"{ on_dispatch = "log.kick", dispatch = { "log.again" } }"#,
            #"{ on_dispatch = "log.again", dispatch = { "log.kick" } }"#, "stopped: more than 32 reactions"
        ),
    ]

    @Test(arguments: cases)
    func aLoggedFailureExits6AfterTheStateIsSaved(_ rule: String, _ extra: String, _ logged: String) async throws {
        let log = try plugin(rule: rule, extra: extra)
        let outcome = try await workspace.run("run", log, "--dispatch", "log.kick", "--save", "state.json")
        #expect(outcome.status == 6, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(logged), "\(outcome.stderr)")
        #expect(outcome.stderr.hasSuffix("reached only the log (above); --allow-logged-failures exits 0 for them\n"))
        #expect(try workspace.read("state.json").contains("\"kicks\""))
    }

    @Test(arguments: cases)
    func allowLoggedFailuresExits0(_ rule: String, _ extra: String, _ logged: String) async throws {
        let log = try plugin(rule: rule, extra: extra)
        let outcome = try await workspace.run("run", log, "--dispatch", "log.kick", "--allow-logged-failures")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(logged))
        #expect(try outcome.json()["kicks"] != nil)
    }

    @Test func aLogLevelThatHidesTheFailureStillExits6() async throws {
        let log = try plugin(rule: #"{ on_dispatch = "log.kick", dispatch = { "log.fail" } }"#)
        let outcome = try await workspace.run("run", log, "--dispatch", "log.kick", "--log-level", "critical")
        #expect(outcome.status == 6)
        #expect(outcome.stderr == "error: 1 failure reached only the log (above); --allow-logged-failures exits 0 for them\n")
    }

    @Test func aPluginsOwnErrorLogIsNotAFailureOfTheRun() async throws {
        try workspace.plugin(
            "quiet",
            """
            return {
              name = "quiet",
              side_effects = { note = function(ctx) ctx.deps.log.error("the plugin's own concern") end },
            }
            """)
        let outcome = try await workspace.run("run", "quiet", "--dispatch", "quiet.note")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("the plugin's own concern"))
    }

    @Test func aFailingWatchLineIsReportedNotLoggedAndExits0() async throws {
        let log = try plugin(rule: #"{ on_dispatch = "log.again", dispatch = { "log.kick" } }"#)
        let outcome = try await workspace.run("run", log, "--watch", input: "log.fail\nlog.kick\n")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.hasPrefix("error: log.fail: log/plugin.lua:5: the rule's item fails"))
    }
}
