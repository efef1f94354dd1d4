import Foundation
import GRDB
import MoonbladeHost
import MoonbladeJournal
import Testing

/// The plugin versions a journal records with its states, and the migrations a host runs on a recorded
/// state it puts back (resuming, `goto`, replay): the error paths, plugins that were not there,
/// downgrades, and journals written before versions were recorded.
@Suite struct JournalPluginVersionTests {
    /// A `migrate` that succeeds on the reload (the state has a `total`) and fails on the empty
    /// state recorded before it, with the kind and message of its error.
    static let failingMigrations: [(migrate: String, kind: PluginError.Kind, message: String)] = [
        (
            #"function(s, from) if s.total == nil then error("nothing to migrate from " .. from) end; s.count = s.total; s.total = nil end"#,
            .runtime, "nothing to migrate from 1"
        ),
        // A runaway: stopped by the instruction budget.
        ("function(s, from) while s.total == nil do end; s.count = s.total; s.total = nil end", .limit, "instruction"),
    ]

    /// A migration that fails or runs away on the state `goto` brings back: the error names the plugin's
    /// `migrate` and its `file:line`, the store's state is as before, and the host goes on.
    @Test(arguments: 0..<failingMigrations.count)
    func aFailingMigrationAtGotoLeavesTheStateAndTheHostRunning(_ index: Int) async throws {
        let (migrate, kind, message) = Self.failingMigrations[index]
        let workspace = Workspace()
        let (host, journal) = try await workspace.hostMigratedByAReload(migrate: migrate)
        #expect(host.state == ["count": 1])

        let error = try await #require(throws: PluginError.self) { try await TimeTravel(host: host, journal: journal).goto(0) }
        #expect(error.kind == kind)
        #expect(error.item == "step.migrate")
        #expect(error.location?.description == "step/plugin.lua:4")
        #expect(error.message.contains(message))
        #expect(host.state == ["count": 1])
        try await host.dispatch("step.add", ["by": 2]).value
        #expect(host.state == ["count": 3])
    }

    /// A migration that fails on the state a host resumes: the host does not start (the error names
    /// the plugin's `migrate` and its `file:line`) and the journal is left as it was, so the same
    /// journal opens once `migrate` is fixed.
    @Test func aFailingMigrationAtOpenLeavesTheJournalAsItWas() async throws {
        let migrate = #"function(s, from) s.count = 0; error("cannot read total " .. s.total) end"#
        let (error, journal, workspace) = try await openingRefused(recordedVersion: 1, migrate: migrate)
        #expect(error.item == "step.migrate")
        #expect(error.location?.description == "step/plugin.lua:4")
        #expect(error.message == "cannot read total 3")
        #expect(try journal.state() == ["total": 3])
        #expect(try journal.pluginVersions() == ["step": 1])

        let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)], journal: journal)
        #expect(host.state == ["count": 3])
        try journal.close()
    }

    /// `goto` a state recorded under a later version than the loaded one (the plugin was reloaded back
    /// to an earlier version): refused, naming the plugin and both versions; the state stays, and a
    /// state the loaded version kept is still reachable.
    @Test func gotoAStateOfALaterVersionIsRefused() async throws {
        let workspace = Workspace()
        let (host, journal) = try await workspace.hostMigratedByAReload()  // 1 under version 1, 2 the reload
        try await host.dispatch("step.add", ["by": 1]).value  // 3, version 2
        try workspace.step(version: 1)
        _ = try await host.reload(plugin: "step")  // 4: back to version 1, nothing migrated
        #expect(host.state == ["count": 2])

        let travel = TimeTravel(host: host, journal: journal)
        let error = try await #require(throws: PluginError.self) { try await travel.goto(3) }
        #expect(error.kind == .downgrade)
        #expect(error.plugin == "step")
        #expect(error.message.contains("version 2 of plugin step") && error.message.contains("loaded version 1 is older"))
        #expect(host.state == ["count": 2])
        try await travel.goto(1)
        #expect(host.state == ["total": 1])
    }

    /// A journal whose state a later version kept, reopened with an earlier one: the host does not
    /// start, naming the plugin and both versions; given a state of its own, it does.
    @Test func aJournalOfALaterVersionIsRefusedAtOpen() async throws {
        let (error, journal, workspace) = try await openingRefused(recordedVersion: 3, migrate: Workspace.stepMigration)
        #expect(error.kind == .downgrade)
        #expect(
            error.description == "plugin step: the state was recorded under version 3 of plugin step, and the loaded "
                + "version 2 is older: nothing migrates a state back (load version 3 or later)")
        let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)], journal: journal, initialState: ["count": 7])
        #expect(host.state == ["count": 7])
        try journal.close()
    }

    /// A plugin that was not loaded when the state was recorded has nothing of its own in it to
    /// migrate: resuming and `goto` keep the state as it is (this `migrate` would fail).
    @Test func aPluginAbsentWhenTheStateWasRecordedKeepsItAsItIs() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        do {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
            try await host.dispatch("tally.push", ["item": "a"]).value
            try await host.dispatch("tally.push", ["item": "b"]).value
            try journal.close()
        }
        let journal = try Journal(path: path)
        let step = try workspace.step(version: 2, migrate: #"function() error("step was not there") end"#)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally(), step], journal: journal)
        #expect(host.state == ["items": ["a", "b"]])
        try await TimeTravel(host: host, journal: journal).goto(1)
        #expect(host.state == ["items": ["a"]])
        #expect(try journal.pluginVersions(at: 1) == ["tally": 1])
        #expect(try journal.pluginVersions() == ["tally": 1, "step": 2])
        try journal.close()
    }

    /// A plugin loaded into a running host has its version recorded from then on, so a state it kept
    /// is migrated when a later version of it is loaded.
    @Test func aPluginLoadedIntoARunningHostHasItsVersionRecorded() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.push", ["item": "a"]).value  // 1
        try host.load(plugin: try workspace.step(version: 1))
        try await host.dispatch("step.add", ["by": 2]).value  // 2, step version 1
        try workspace.step(version: 2)
        _ = try await host.reload(plugin: "step")  // 3
        try await host.dispatch("step.add", ["by": 1]).value  // 4

        #expect(try journal.pluginVersions(at: 0) == ["tally": 1])
        #expect(try journal.pluginVersions(at: 2) == ["tally": 1, "step": 1])
        #expect(try journal.pluginVersions(at: 3) == ["tally": 1, "step": 2])
        try await TimeTravel(host: host, journal: journal).goto(2)
        #expect(host.state == ["items": ["a"], "count": 2])
    }

    /// A journal written before versions were recorded (no `plugin_versions` table): a reader sees no
    /// versions, and a host takes its state as kept by the loaded versions (no migration: nothing says
    /// it is older), then records them.
    @Test func aJournalWrittenBeforeVersionsWereRecordedStillOpens() async throws {
        let (workspace, path) = try await recordedStep(adding: 3, editedWith: "DROP TABLE plugin_versions")
        let reader = try Journal.existing(at: path)
        #expect(try reader.pluginVersions() == [:])
        #expect(try reader.check().entries == 1)
        try reader.close()
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)], journal: journal)
        #expect(host.state == ["total": 3])
        #expect(try journal.pluginVersions() == ["step": 2])
        try journal.close()
    }

    /// A version row changed on disk no longer matches its checksum: reading versions (so `goto` and a
    /// host resuming the journal) and `check` report it rather than migrate by a wrong version.
    @Test func aDamagedVersionRowIsReported() async throws {
        let (workspace, path) = try await recordedStep(adding: 1, editedWith: "UPDATE plugin_versions SET version = 0")
        defer { withExtendedLifetime(workspace) {} }
        let journal = try Journal.existing(at: path)
        let problem = "the version row of plugin step as of 0 is damaged: its row does not match its checksum"
        #expect { _ = try journal.pluginVersions() } throws: { ($0 as? JournalError)?.problem == problem }
        #expect { _ = try journal.check() } throws: { ($0 as? JournalError)?.problem.hasPrefix(problem) == true }
    }

    /// Versions are written when they change (a first start, a reload), not per dispatch, and not
    /// again by a restart with the same plugins.
    @Test func versionsAreRecordedWhenTheyChangeOnly() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try await record(path, workspace, version: 1, adding: 1, times: 20)
        try await record(path, workspace, version: 1, adding: 1, times: 20)
        #expect(try await versionRows(path) == 1)
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 1)], journal: journal)
        try workspace.step(version: 2)
        _ = try await host.reload(plugin: "step")
        try journal.close()
        #expect(try await versionRows(path) == 2)
        #expect(try Journal.existing(at: path).pluginVersions(at: 40) == ["step": 1])
        #expect(try Journal.existing(at: path).pluginVersions(at: 41) == ["step": 2])
    }

    /// Replay against a newer version migrates the recorded states before comparing; a `migrate` that
    /// fails on them is a divergence; a journal of a later version is an error naming both versions.
    @Test func replayMigratesRecordedStates() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try await record(path, workspace, version: 1, adding: 1, times: 3)
        let journal = try Journal.existing(at: path)

        let current = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)])
        let report = try JournalReplay.run(journal, on: current)
        #expect(report.matched == 3 && report.divergence == nil)

        let failing = try PluginHost<JSONValue>(
            plugins: [
                try workspace.step(
                    version: 2, migrate: #"function(s) if (s.total or 0) > 1 then error("too many") end; s.count = s.total or 0; s.total = nil end"#)
            ])
        let divergence = try #require(try JournalReplay.run(journal, on: failing).divergence)
        #expect(divergence.entry.sequence == 2)
        #expect(divergence.replayed == .failed("step.migrate: step/plugin.lua:4: too many"))

        let older = workspace.path("older.journal")
        try await record(older, workspace, version: 3, adding: 1)
        let downgrade = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2)])
        #expect {
            _ = try JournalReplay.run(Journal.existing(at: older), on: downgrade)
        } throws: { error in
            (error as? JournalError)?.problem == "entry 1 (step.add): the state was recorded under version 3 of plugin step, "
                + "and the loaded version 2 is older: nothing migrates a state back (load version 3 or later)"
        }
    }

    /// Records `times` dispatches of `step.add` by `adding` under `version` of `step` into the
    /// journal at `path` (a later version starts from `count` 0), and closes it.
    private func record(_ path: String, _ workspace: Workspace, version: Int, adding: Int, times: Int = 1) async throws {
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(
            plugins: [try workspace.step(version: version)], journal: journal,
            initialState: version > 1 && journal.lastSequence == 0 ? ["count": 0] : nil)
        for _ in 0..<times {
            try await host.dispatch("step.add", ["by": adding]).value
        }
        try journal.close()
    }

    /// Records `step.add` under `recordedVersion` of `step` into a new journal file and opens a host on
    /// it with version 2 of `step` and its `migrate`, which must refuse to start: its error, the journal
    /// (open, for the test to go on with it) and the workspace holding both.
    private func openingRefused(recordedVersion: Int, migrate: String) async throws -> (PluginError, Journal, Workspace) {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try await record(path, workspace, version: recordedVersion, adding: 3)
        let journal = try Journal(path: path)
        let error = try #require(throws: PluginError.self) {
            _ = try PluginHost<JSONValue>(plugins: [try workspace.step(version: 2, migrate: migrate)], journal: journal)
        }
        return (error, journal, workspace)
    }

    /// A new workspace with `app.journal` holding `step.add` by `adding` under version 1 of `step`,
    /// then changed with `sql` as an older moonblade (or damage) would have left it; and its path.
    private func recordedStep(adding: Int, editedWith sql: String) async throws -> (Workspace, String) {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        try await record(path, workspace, version: 1, adding: adding)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { try $0.execute(sql: sql) }
        try queue.close()
        return (workspace, path)
    }

    /// How many version rows the journal at `path` holds.
    private func versionRows(_ path: String) async throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try await queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM plugin_versions") ?? 0 }
    }
}
