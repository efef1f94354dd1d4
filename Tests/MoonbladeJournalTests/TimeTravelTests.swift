import MoonbladeHost
import MoonbladeJournal
import Testing

@Suite struct TimeTravelTests {
    @Test func gotoUndoAndDiffWalkTheRecordedStates() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        let travel = TimeTravel(host: host, journal: journal)
        for by in [1, 10, 100] {
            try await host.dispatch("tally.add", ["by": by]).value
        }
        #expect(try travel.position() == 3)

        try await travel.goto(1)
        #expect(host.state == ["count": 1])
        #expect(try travel.diff(from: 3) == ["count: 111 → 1"])
        // A new branch from 1: the next change builds on it, and undo comes back to 1.
        try await host.dispatch("tally.add", ["by": 5]).value
        #expect(host.state == ["count": 6])
        #expect(try await travel.undo() == 1)
        #expect(host.state == ["count": 1])
        #expect(try await travel.undo() == 0)
        #expect(host.state == [:])
        await #expect(throws: JournalError.self) { try await travel.undo() }
        #expect(host.state == [:])

        let history = try travel.history()
        #expect(history.map(\.name) == ["tally.add", "tally.add", "tally.add", "goto", "tally.add", "goto", "goto"])
        #expect(history.map(\.target) == [nil, nil, nil, 1, nil, 1, 0])
        #expect(history[3].patch.summary == "count = 1")
    }

    @Test func gotoOutsideTheJournalIsAnErrorAndChangesNothing() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.add").value
        await #expect {
            try await TimeTravel(host: host, journal: journal).goto(7)
        } throws: { error in
            "\(error)" == "journal :memory:: no entry 7 (the journal goes from 0 to 1)"
        }
        #expect(host.state == ["count": 1])
        #expect(journal.lastSequence == 1)
    }

    @Test func aJumpSurvivesRecovery() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        do {
            let journal = try Journal(path: path)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
            try await host.dispatch("tally.add", ["by": 2]).value
            try await host.dispatch("tally.add", ["by": 3]).value
            try await TimeTravel(host: host, journal: journal).goto(1)
            try journal.close()
        }
        #expect(try Journal.existing(at: path).state() == ["count": 2])
    }
}
