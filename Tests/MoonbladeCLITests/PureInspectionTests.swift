import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// Looking at recorded state changes nothing: time travel, recovery and replay put a state back
/// without running plugin code (rules, `on_start`, side effects, storage), and reading a journal
/// leaves its file as it was.
@Suite("Pure time travel and read-only inspection")
struct PureInspectionTests {
    let workspace = Workspace()

    /// A plugin that loads on start and saves through storage on every change: the shape that made a
    /// rewound state overwrite its storage file, and a restart append entries.
    private func shop() throws -> String {
        try workspace.plugin(
            "shop",
            """
            return {
              name = "shop",
              updaters = {
                add = function(state, p) state.count = (state.count or 0) + p.by end,
                loaded = function(state, p) state.loads = (state.loads or 0) + 1 end,
              },
              side_effects = {
                load = function(ctx) ctx.dispatch("shop.loaded") end,
                save = function(ctx) ctx.deps.storage.write { key = "shop", value = ctx.state() } end,
              },
              observers = {
                { on_start = { "shop.load" } },
                { on_state_change = function(old, new) return old.count ~= new.count end, dispatch = { "shop.save" } },
              },
            }
            """)
    }

    private func entries(_ file: String) throws -> Int {
        try Journal.existing(at: workspace.url.appendingPathComponent(file).path).entries().count
    }

    @Test func aRestartOnlyToLookAppendsNothing() async throws {
        let shop = try shop()
        let first = try await workspace.run(
            "run", shop, "--journal", "app.journal", "--dispatch", "shop.add", #"{"by": 2}"#)
        #expect(first.status == 0, "\(first.stderr)")
        let recorded = try entries("app.journal")
        #expect(recorded == 4)  // load (started), loaded, add, save (started)
        let restarted = try await workspace.run("run", shop, "--journal", "app.journal")
        #expect(restarted.status == 0, "\(restarted.stderr)")
        #expect(try restarted.json() == ["count": 2, "loads": 1])
        #expect(try entries("app.journal") == recorded)
    }

    @Test func journalLogPrintsEntriesAndChangesNothingInTheFile() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        _ = try await workspace.run(
            "run", tally, "--journal", "app.journal", "--dispatch", "tally.add", #"{"by": 2}"#, "--dispatch", "tally.add",
            #"{"by": 3}"#)
        let file = workspace.url.appendingPathComponent("app.journal")
        let before = try Data(contentsOf: file)
        let filesBefore = try workspace.contents()

        let log = try await workspace.run("journal", "log", "app.journal", "--from", "2")
        #expect(log.status == 0, "\(log.stderr)")
        let lines = log.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(log.stdout)")
        #expect(lines.first?.hasPrefix("2  ") == true)
        #expect(lines.first?.hasSuffix(#"  tally.add {"by":3}"#) == true)
        #expect(lines.dropFirst().first?.hasPrefix("    tally v1  applied  ") == true)
        #expect(lines.dropFirst().first?.hasSuffix(" ms  (state kept by tally v1)") == true)
        #expect(lines.last == "    total: 2 → 5")

        let all = try await workspace.run("journal", "log", "app.journal", "--until", "1")
        #expect(all.stdout.split(separator: "\n").last == "    total: (absent) → 2")
        #expect(try Data(contentsOf: file) == before)
        #expect(try workspace.contents() == filesBefore)
        #expect(try entries("app.journal") == 2)
    }

    @Test func journalLogOfAMissingFileIsAJournalError() async throws {
        let outcome = try await workspace.run("journal", "log", "none.journal")
        #expect(outcome.status == 7)
        #expect(outcome.stderr == "error: journal none.journal: no such file\n")
        #expect(try !workspace.contents().contains("none.journal"))
    }

    /// `replay` runs no `on_start`: a failing one printed an error while the replay reported success.
    @Test func replayRunsNoStartRuleAndTakesAFolderOfPlugins() async throws {
        let tally = try workspace.plugin("plugins/tally", tallyPlugin)
        _ = try await workspace.run("run", tally, "--journal", "app.journal", "--dispatch", "tally.add")
        try workspace.file(
            "plugins/boom/plugin.lua",
            #"return { name = "boom", side_effects = { go = function() error("boom on start") end }, observers = { { on_start = { "boom.go" } } } }"#)
        let replayed = try await workspace.run("replay", "app.journal", "--plugins", "plugins")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == "replayed 1 updater dispatches, all as recorded (0 other entries skipped)\n")
        #expect(replayed.stderr == "")
    }

    /// `goto` puts a state back: the `on_state_change` rule that saves does not fire, so the storage
    /// file keeps the latest state and the journal gets only the jump.
    @Test func gotoFiresNoRuleAndWritesNoStorage() async throws {
        let shop = try shop()
        let repl = try await workspace.run(
            "repl", shop, "--no-watch", "--data-dir", "data",
            input: "shop.add {\"by\": 1}\nshop.add {\"by\": 10}\ngoto 3\nstate\nhistory 2\n")
        #expect(repl.stderr == "", "\(repl.stderr)")
        #expect(repl.stdout.contains("at 3"), "\(repl.stdout)")
        #expect(repl.stdout.contains(#""count": 1"#))
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(workspace.read("data/shop.json").utf8))
        #expect(saved["count"] == 11)
        #expect(repl.stdout.hasSuffix("goto 3  count = 1\n"), "\(repl.stdout)")
    }
}
