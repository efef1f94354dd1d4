import Foundation
import Testing

/// `journal to-spec`, `replay` and the repl's time travel given what they were not written for:
/// rules that dispatch, error messages that hold carriage returns, ranges and numbers that hold no
/// entry, a plugin that changed or broke since the recording.
@Suite("journal, replay and time travel with hostile input")
struct JournalTimeTravelHostileTests {
    let workspace = Workspace()

    /// `rec.a` sets off `rec.b` by a rule; `rec.fail` raises a message with a carriage return
    /// followed by Lua code. `bFactor` is what `rec.b` adds, to change the code after the recording.
    @discardableResult
    private func recordingPlugin(bFactor: Int = 1) throws -> String {
        try workspace.plugin(
            "rec",
            """
            return {
              name = "rec",
              updaters = {
                a = function(s, p) s.a = (s.a or 0) + (p and p.by or 1) end,
                b = function(s) s.b = (s.b or 0) + \(bFactor) end,
                fail = function(s) error("first line\\rerror('code from the comment ran')") end,
              },
              observers = { { on_dispatch = "rec.a", dispatch = { "rec.b" } } },
            }
            """)
    }

    /// Records `rec.a {by: 2}` (and the `rec.b` its rule dispatched), `rec.fail`, and `rec.a` again.
    private func record() async throws {
        let rec = try recordingPlugin()
        let run = try await workspace.run(
            "run", rec, "--journal", "app.journal", "--dispatch", "rec.a", #"{"by": 2}"#, "--dispatch", "rec.fail")
        #expect(run.status == 1)
        let more = try await workspace.run("run", rec, "--journal", "app.journal", "--dispatch", "rec.a")
        #expect(more.status == 0, "\(more.stderr)")
    }

    /// A recorded session of a plugin whose rule dispatches: each entry ran through the whole store,
    /// so the rule's `rec.b` ran twice and the spec failed against the very code that recorded it.
    /// A failure message holding `\r` ended the comment it was written in, and the rest ran as code.
    @Test func aSpecFromASessionWithRulesAndOddMessagesPassesOnTheCodeThatRecordedIt() async throws {
        try await record()
        let written = try await workspace.run(
            "journal", "to-spec", "app.journal", "--plugin", "rec", "--output", "rec/spec/recorded_spec.lua")
        #expect(written.status == 0, "\(written.stderr)")
        let source = try workspace.read("rec/spec/recorded_spec.lua")
        #expect(!source.contains("\r"))
        let tested = try await workspace.run("test", "rec")
        #expect(tested.status == 0, "\(tested.stdout)")
        #expect(tested.stdout.contains("ok   rec: recorded session of rec replays entries 1 to 5"), "\(tested.stdout)")

        // And it still catches a change.
        try recordingPlugin(bFactor: 2)
        let changed = try await workspace.run("test", "rec")
        #expect(changed.status == 2)
        #expect(changed.stdout.contains("recorded_spec.lua:"), "\(changed.stdout)")
        #expect(changed.stdout.contains("values differ at b"), "\(changed.stdout)")
    }

    /// `apply_updater` leaves the store alone and runs no rule; a name that is no updater fails at
    /// the spec's line.
    @Test func applyUpdaterRunsOneUpdaterOutsideTheStore() async throws {
        try recordingPlugin()
        try workspace.file(
            "rec/spec/apply_spec.lua",
            """
            it("applies", function()
              assert.are.same({ a = 3, b = 1 }, apply_updater({ a = 1, b = 1 }, "rec.a", { by = 2 }))
              assert.are.same({}, state())
            end)
            it("refuses a name", function()
              local x = 1
              apply_updater({}, "rec.nothing")
            end)
            """)
        let tested = try await workspace.run("test", "rec")
        #expect(tested.status == 2)
        let lines = tested.stdout.split(separator: "\n")
        #expect(lines.first == "ok   rec: applies")
        #expect(lines.dropFirst().first?.hasPrefix("FAIL rec: refuses a name — rec/spec/apply_spec.lua:7: ") == true, "\(tested.stdout)")
    }

    /// A state or payload nested some 250 levels (the host takes 255) was written as one expression,
    /// deeper than Lua's parser goes: the spec failed to load with "C stack overflow".
    @Test func aSpecOfDeeplyNestedValuesLoadsAndCompares() async throws {
        let deep = String(repeating: #"{"x": "#, count: 250) + #""leaf""# + String(repeating: "}", count: 250)
        try workspace.plugin("tree", #"return { name = "tree", updaters = { set = function(s, p) s.tree = p end } }"#)
        let run = try await workspace.run("run", "tree", "--journal", "app.journal", "--dispatch", "tree.set", deep)
        #expect(run.status == 0, "\(run.stderr)")
        let written = try await workspace.run(
            "journal", "to-spec", "app.journal", "--plugin", "tree", "--output", "tree/spec/recorded_spec.lua")
        #expect(written.status == 0, "\(written.stderr)")
        let tested = try await workspace.run("test", "tree")
        #expect(tested.stdout == "ok   tree: recorded session of tree replays entries 1 to 1\n1 passed, 0 failed\n")

        try workspace.plugin(
            "tree",
            #"return { name = "tree", updaters = { set = function(s, p) s.tree = p; local t = p; while type(t.x) == "table" do t = t.x end; t.x = "other" end } }"#
        )
        let changed = try await workspace.run("test", "tree")
        #expect(changed.status == 2)
        #expect(changed.stdout.contains("values differ at tree.x.x."), "\(changed.stdout.prefix(400))")
    }

    @Test(arguments: [
        (["--from=-4"], "--from -4: entries are numbered from 1"),
        (["--from", "0"], "--from 0: entries are numbered from 1"),
        (["--from", "5", "--until", "2"], "--until 2 is before --from 5"),
        (["--from", "x"], "--from"),
    ])
    func aRangeThatHoldsNoEntryIsAUsageError(range: [String], message: String) async throws {
        try await record()
        for command in [["replay", "app.journal", "--plugins", "rec"], ["journal", "to-spec", "app.journal", "--plugin", "rec"]] {
            let outcome = try await workspace.run(command + range)
            #expect(outcome.status == 64, "\(command) \(range): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
            #expect(outcome.stdout == "")
        }
        #expect(!(try workspace.contents().contains("rec_recorded_spec.lua")))
    }

    @Test func replayOnAPluginThatLostTheUpdaterRunsAwayOrNoLongerLoads() async throws {
        try await record()
        try workspace.plugin("rec", #"return { name = "rec", updaters = { b = function(s) s.b = (s.b or 0) + 1 end } }"#)
        let lost = try await workspace.run("replay", "app.journal", "--plugins", "rec")
        #expect(lost.status == 8)
        #expect(lost.stdout.hasPrefix("diverged at 1: rec.a {\"by\":2}\n  recorded: applied; replayed: failed: "), "\(lost.stdout)")
        try workspace.plugin("rec", #"return { name = "rec", updaters = { a = function(s) while true do end end } }"#)
        let runaway = try await workspace.run("replay", "app.journal", "--plugins", "rec")
        #expect(runaway.status == 8)
        #expect(runaway.stdout.contains("replayed: failed: rec.a: rec/plugin.lua:1: instruction budget of"), "\(runaway.stdout)")
        try workspace.plugin("rec", "return {")
        let broken = try await workspace.run("replay", "app.journal", "--plugins", "rec")
        #expect(broken.status == 3)
        #expect(broken.stderr.contains("rec/plugin.lua:1:"), "\(broken.stderr)")
    }

    @Test func replayHelpNamesItsOwnExitCode() async throws {
        let help = try await workspace.run("replay", "--help")
        #expect(help.stdout.contains("and the exit code is 8."), "\(help.stdout)")
    }

    /// Numbers that name no entry are usage errors and leave the state as it was; `history 0`
    /// printed "no dispatches yet" about a journal that has some.
    @Test func timeTravelWithNumbersThatNameNoEntryChangesNothing() async throws {
        try await record()
        let commands = [
            "history 0", "history -2", "goto -1", "goto x", "goto 99999999999999999999", "goto 1.5",
            "diff -3", "goto 2 3", "goto 99", "diff 99",
        ]
        let outcome = try await workspace.run(
            "repl", "rec", "--journal", "app.journal", "--no-watch", input: (commands + ["state"]).joined(separator: "\n") + "\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "{\n  \"a\": 3,\n  \"b\": 2\n}\n", "\(outcome.stdout)")
        let errors = outcome.stderr.split(separator: "\n")
        #expect(errors.count == commands.count, "\(outcome.stderr)")
        #expect(errors.prefix(2).allSatisfy { $0.hasPrefix("error: usage: history [COUNT]") }, "\(outcome.stderr)")
        #expect(errors.suffix(2).allSatisfy { $0.contains("no entry 99 (the journal goes from 0 to 5)") }, "\(outcome.stderr)")
    }
}
