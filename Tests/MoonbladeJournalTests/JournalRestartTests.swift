import Foundation
import MoonbladeHost
import MoonbladeJournal
import MoonbladeTesting
import Testing

/// A journal whose host restarted from another state than the one it had recorded (the snapshot
/// that restart writes sits between two entries): replay, specs, time travel and check all go on
/// from the state the host restarted with, not from the state before it.
@Suite struct JournalRestartTests {
    /// Adds 1, 2, 3; a restart from `count = 100`; adds 4, 5. The states after 0 … 5 as the host held them.
    private func recordRestartedSession(_ workspace: Workspace, path: String) async throws -> [JSONValue] {
        do {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
            for by in 1...3 { try await host.dispatch("tally.add", JSONValue.object(["by": .integer(Int64(by))])).value }
            try journal.close()
        }
        let journal = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal, initialState: ["count": 100])
        for by in 4...5 { try await host.dispatch("tally.add", JSONValue.object(["by": .integer(Int64(by))])).value }
        try journal.close()
        return [[:], ["count": 1], ["count": 3], ["count": 6], ["count": 104], ["count": 109]]
    }

    @Test func replayGoesOnFromTheRestartState() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        _ = try await recordRestartedSession(workspace, path: path)
        let journal = try Journal.existing(at: path)
        let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [try workspace.tally()]))
        #expect(report.divergence == nil, "\(report.divergence?.lines ?? [])")
        #expect(report.matched == 5)
        let fromFour = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [try workspace.tally()]), from: 4)
        #expect(fromFour.divergence == nil)
        #expect(fromFour.matched == 2)
    }

    @Test func stateCheckAndTimeTravelGiveTheRestartState() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let held = try await recordRestartedSession(workspace, path: path)
        let journal = try Journal.existing(at: path)
        #expect(try journal.check().entries == 5)
        // As of 3 is the state the host held from then on: the one it restarted with.
        for sequence in [0, 1, 2, 3, 4, 5] where sequence != 3 {
            #expect(try journal.state(at: sequence) == held[sequence], "at \(sequence)")
        }
        #expect(try journal.state(at: 3) == ["count": 100])
    }

    @Test func replayAfterAJumpRunsOnTheStateJumpedTo() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.add", ["by": 1]).value
        try await host.dispatch("tally.add", ["by": 2]).value
        try await TimeTravel(host: host, journal: journal).goto(1)
        try await host.dispatch("tally.add", ["by": 10]).value
        #expect(host.state == ["count": 11])
        let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [try workspace.tally()]))
        #expect(report.divergence == nil, "\(report.divergence?.lines ?? [])")
        #expect(report.matched == 3)
        #expect(report.skipped == 1)
    }

    @Test func aSpecFromTheSessionPasses() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        _ = try await recordRestartedSession(workspace, path: path)
        let source = try JournalSpecWriter.spec(from: try Journal.existing(at: path), plugin: "tally")
        let plugin = try workspace.tally()
        try FileManager.default.createDirectory(atPath: plugin + "/spec", withIntermediateDirectories: true)
        try source.write(toFile: plugin + "/spec/recorded_spec.lua", atomically: true, encoding: .utf8)
        for specCase in LuaSpecRunner.discover(plugin: plugin) {
            let result = await LuaSpecRunner().run(specCase)
            #expect(result == .passed, "\(result)\n\(source)")
        }
    }
}
