import MoonbladeHost
import MoonbladeJournal
import Testing

/// Time travel at the edges: 0, the end, past it, below 0, and on and beside snapshot boundaries.
@Suite struct TimeTravelBoundaryTests {
    /// Pushes `item 1` … `item 6` with a snapshot every 3 entries (so at 3 and 6); the states after each.
    private func recordSix(_ workspace: Workspace, path: String) async throws -> (Journal, PluginHost<JSONValue>, [JSONValue]) {
        let journal = try Journal(path: path, configuration: .init(snapshotInterval: 3))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        var states: [JSONValue] = [[:]]
        for index in 1...6 {
            try await host.dispatch("tally.push", JSONValue.object(["item": .string("item \(index)")])).value
            states.append(host.state)
        }
        return (journal, host, states)
    }

    @Test func gotoEverySequenceGivesTheStateAfterIt() async throws {
        let workspace = Workspace()
        let (journal, host, states) = try await recordSix(workspace, path: workspace.path("app.journal"))
        let travel = TimeTravel(host: host, journal: journal)
        // 0, the end, both sides of each snapshot (3 and 6), and back again.
        for sequence in [0, 6, 2, 3, 4, 5, 6, 1, 0, 3] {
            try await travel.goto(sequence)
            #expect(host.state == states[sequence], "goto \(sequence)")
            #expect(try travel.position() == (sequence == 0 ? 0 : sequence), "goto \(sequence)")
        }
        // The jumps are entries too; the recorded states stay addressable by their sequence.
        for sequence in 0...6 {
            #expect(try journal.state(at: sequence) == states[sequence], "state at \(sequence)")
        }
        try journal.close()
    }

    @Test func outsideTheJournalIsAnErrorForEveryReader() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let (journal, host, states) = try await recordSix(workspace, path: path)
        let travel = TimeTravel(host: host, journal: journal)
        for sequence in [-1, 7, Int.max, Int.min] {
            await #expect(throws: JournalError.self, "goto \(sequence)") { try await travel.goto(sequence) }
            #expect(throws: JournalError.self, "state at \(sequence)") { _ = try journal.state(at: sequence) }
            #expect(throws: JournalError.self, "diff \(sequence)") { _ = try travel.diff(from: sequence) }
        }
        #expect(host.state == states[6])
        #expect(journal.lastSequence == 6)
        try journal.close()
        // Replay from past the end is an error naming the entry asked for, not "nothing differs".
        let reader = try Journal.existing(at: path)
        let error = #expect(throws: JournalError.self) {
            _ = try JournalReplay.run(reader, on: try PluginHost<JSONValue>(plugins: [try workspace.tally()]), from: 9)
        }
        #expect("\(error.map { "\($0)" } ?? "")".hasSuffix("no entry 9 (the journal goes from 0 to 6)"))
    }

    @Test func afterRecoveryTheSameStatesAreThere() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let (journal, _, states) = try await recordSix(workspace, path: path)
        try journal.close()
        let reopened = try Journal(path: path, configuration: .init(snapshotInterval: 3))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: reopened)
        #expect(host.state == states[6])
        let travel = TimeTravel(host: host, journal: reopened)
        try await travel.goto(4)
        #expect(host.state == states[4])
        try await host.dispatch("tally.pop").value
        #expect(host.state == states[3])
        #expect(try await travel.undo() == 4)
        #expect(host.state == states[4])
        try reopened.close()
    }
}
