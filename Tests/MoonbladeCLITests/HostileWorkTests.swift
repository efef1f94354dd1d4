import Foundation
import MoonbladeHost
import Testing

/// Plugins whose loops do megabytes of work in C per instruction, run from the command line at the
/// default limits: each call ends at its limit with its place, the state stays, the next one runs.
@Suite("moonblade: work in C at scale under the default limits", .serialized)
struct HostileWorkTests {
    let workspace = Workspace()

    /// The default budget (100 M instructions) and call time limit (5 s): before work in C was
    /// charged by its size, the first of these loops ran 50 s and the side effect minutes.
    static let bound = Duration.seconds(30).allowingForSanitizers
    static let budgetExceeded = "instruction budget of 100000000 instructions exceeded"

    /// Whether `output` has a line that starts with `start` and ends with the message of one of the
    /// default limits: which a loop meets first depends on the machine, and for the side effect's
    /// 100 MB string on what the earlier calls left for the collector (a sanitized run, slower, met
    /// the 256 MB memory limit once).
    static func stopped(_ output: String, _ start: String) -> Bool {
        output.split(separator: "\n").contains { line in
            line.hasPrefix(start)
                && [budgetExceeded, "time limit of 5 s exceeded", "memory limit of 268435456 bytes exceeded"].contains {
                    line.hasSuffix($0)
                }
        }
    }

    static let plugin = """
        return {
          updaters = {
            bump = function(state) state.n = (state.n or 0) + 1 end,
            packsize = function(state) state.n = -1 local f = ('i16'):rep(3e7) while true do string.packsize(f) end end,
            concat = function(state) state.n = -1 local t = {} for i = 1, 1e6 do t[i] = 'abcdefgh' end while true do local r = table.concat(t, ',') end end,
          },
          side_effects = {
            utf8 = function(ctx) local s = ('x'):rep(1e8) while true do utf8.len(s) end end,
          },
          observers = {
            { on_dispatch = "hostile.bump", dispatch = { { "hostile.bump", function() local s = ('x'):rep(1e7) while true do s:upper() end end } } },
          },
        }
        """

    @Test func eachCallEndsAtItsLimitAndTheNextRuns() async throws {
        let hostile = try workspace.plugin("hostile", Self.plugin)
        let input = "hostile.packsize\nhostile.concat\nhostile.utf8\nstate\nquit\n"
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await workspace.run("repl", "--no-watch", hostile, input: input)
        let elapsed = clock.now - start
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(elapsed < Self.bound * 3, "took \(elapsed)")
        for (item, line) in [("packsize", 4), ("concat", 5), ("utf8", 8)] {
            #expect(Self.stopped(outcome.stderr, "error: hostile.\(item): hostile/plugin.lua:\(line): "), "\(outcome.stderr)")
        }
        #expect(outcome.stdout.hasSuffix("{}\n"), "\(outcome.stdout)")  // no updater's `state.n = -1` stayed
    }

    /// An observer rule's payload function that loops in C is stopped, reported with the rule and its
    /// line, and the dispatch that set it off stands.
    @Test func aRuleThatLoopsInCIsStoppedAndReported() async throws {
        try await Self.expectRuleStopped(in: workspace, plugin: Self.plugin, line: 11)
    }

    /// Runs `hostile.bump` of the plugin `source` with `moonblade run` and checks that its first observer
    /// rule, which works without end, is stopped in time and reported at `line`, and that the dispatch
    /// that set it off stands (`n` is 1).
    static func expectRuleStopped(in workspace: Workspace, plugin source: String, line: Int) async throws {
        let hostile = try workspace.plugin("hostile", source)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await workspace.run("run", hostile, "--dispatch", "hostile.bump", "--allow-logged-failures")
        #expect(clock.now - start < bound, "took \(clock.now - start)")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("hostile.observers[1]: hostile/plugin.lua:\(line):"), "\(outcome.stderr)")
        #expect(stopped(outcome.stderr.replacingOccurrences(of: " plugin=", with: "\n"), ""), "\(outcome.stderr)")
        #expect(try outcome.json()["n"] == 1)
    }

    /// A spec that loops in C itself, and one that dispatches such an updater, fail with their places;
    /// the next case runs (each case has a host of its own), and sees its dispatch fail for the rule
    /// it set off that loops in C (a spec's dispatch fails for what its rules set off and fail).
    @Test func specsThatLoopInCFailAndTheNextRuns() async throws {
        let hostile = try workspace.plugin("hostile", Self.plugin)
        _ = try workspace.file(
            "hostile/spec/hostile_spec.lua",
            """
            describe("hostile", function()
              it("packs in the spec", function() local f = ('i16'):rep(3e7) while true do string.packsize(f) end end)
              it("dispatches", function() dispatch("hostile.packsize") end)
              it("still bumps", function()
                -- The rule the bump sets off is stopped: that fails the dispatch, and the bump stands.
                assert.has_error(function() dispatch("hostile.bump") end)
                assert.are.same(1, state().n)
              end)
            end)
            """)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await workspace.run("test", hostile)
        #expect(clock.now - start < Self.bound * 2, "took \(clock.now - start)")
        #expect(outcome.status == 2, "\(outcome.stdout)\(outcome.stderr)")
        #expect(Self.stopped(outcome.stdout, "FAIL hostile: hostile packs in the spec — "), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("hostile_spec.lua:2: "), "\(outcome.stdout)")
        #expect(Self.stopped(outcome.stdout, "FAIL hostile: hostile dispatches — "), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("hostile_spec.lua:3: hostile.packsize: hostile/plugin.lua:4: "), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("ok   hostile: hostile still bumps"), "\(outcome.stdout)")
    }
}
