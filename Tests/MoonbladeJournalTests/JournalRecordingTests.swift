import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeJournal
import Testing

@Suite struct JournalRecordingTests {
    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func recordsEachDispatchWithWhatItChanged(durability: Journal.Configuration.Durability) async throws {
        let workspace = Workspace()
        let journal = try Journal(path: workspace.path("app.journal"), configuration: .init(durability: durability))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally(version: 3)], journal: journal)
        try await host.dispatch("tally.add", ["by": 2]).value
        try await host.dispatch("tally.push", ["item": "milk"]).value
        await #expect(throws: PluginError.self) { try await host.dispatch("tally.fail").value }
        let entries = try journal.entries()

        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(entries.map(\.name) == ["tally.add", "tally.push", "tally.fail"])
        #expect(entries[0].payload == ["by": 2])
        #expect(entries[0].source == "tally v3")
        #expect(entries[0].kind == .updater)
        #expect(entries[0].outcome == .applied)
        #expect(entries[0].patch.changes == [.init(path: [.key("count")], value: 2)])
        #expect(entries[1].patch.summary == #"items = ["milk"]"#)
        guard case .failed(let message) = entries[2].outcome else {
            Issue.record("a failing updater is recorded as failed, not \(entries[2].outcome)")
            return
        }
        #expect(message.contains("tally refuses") && message.contains("plugin.lua:"))
        #expect(!message.contains("\n"))
        #expect(entries[2].patch.isEmpty)
        #expect(entries.allSatisfy { $0.duration > .zero })
        #expect(try journal.state() == ["count": 2, "items": ["milk"]])
        try journal.close()
    }

    @Test func recordsSideEffectsAndWhatTheyDispatch() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.twice", ["by": 5]).value
        let entries = try journal.entries()
        #expect(entries.map(\.name) == ["tally.twice", "tally.add", "tally.add"])
        #expect(entries[0].kind == .sideEffect)
        #expect(entries[0].outcome == .started)
        #expect(try journal.state() == ["count": 10])
    }

    @Test func recoversTheStateWithoutRunningPluginCode() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let plugin = try workspace.tally()
        do {
            let journal = try Journal(path: path, configuration: .init(snapshotInterval: 4))
            let host = try PluginHost<JSONValue>(plugins: [plugin], journal: journal)
            for index in 0..<10 {
                try await host.dispatch("tally.push", JSONValue.object(["item": .string("item \(index)")])).value
            }
            try await host.dispatch("tally.pop").value
            try journal.close()
        }
        // The plugin is gone: the state must come from the file alone.
        try FileManager.default.removeItem(atPath: plugin)
        let journal = try Journal(path: path)
        #expect(try journal.state()?["items"]?[8] == "item 8")
        #expect(try journal.state()?["items"]?[9] == nil)
        #expect(try journal.state(at: 3) == ["items": ["item 0", "item 1", "item 2"]])
        let summary = try journal.check()
        #expect(summary.entries == 11)
        #expect(summary.lastSequence == 11)
        // The first, every fourth, and the shutdown snapshot.
        #expect(summary.snapshots == 4)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        #expect(host.state["items"]?[8] == "item 8")
        try await host.dispatch("tally.push", ["item": "more"]).value
        #expect(try journal.entries(from: 12).map(\.sequence) == [12])
        #expect(try journal.state()?["items"]?[9] == "more")
    }

    @Test func recordsATypedStateAndStartsATesterFromIt() async throws {
        let workspace = Workspace()
        let journal = try Journal.inMemory()
        let host = try PluginHost<TallyState>(plugins: [try workspace.tally()], journal: journal)
        try await host.dispatch("tally.add", ["by": 4]).value
        try await host.dispatch("tally.push", ["item": "tea"]).value
        #expect(try journal.state(as: TallyState.self, at: 1) == TallyState(count: 4, items: []))
        #expect(try journal.state(as: TallyState.self) == TallyState(count: 4, items: ["tea"]))
        #expect(throws: JournalError.self) { try journal.state(as: [Int].self) }
    }

    @Test func aGivenInitialStateIsSnapshottedSoLaterStatesRebuild() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let plugin = try workspace.tally()
        let first = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [plugin], journal: first)
        try await host.dispatch("tally.add").value
        try first.close()
        let second = try Journal(path: path)
        let restarted = try PluginHost<JSONValue>(plugins: [plugin], journal: second, initialState: ["count": 40])
        try await restarted.dispatch("tally.add", ["by": 2]).value
        #expect(try second.state() == ["count": 42])
        #expect(try second.state(at: 1) == ["count": 40])
        #expect(try second.check().entries == 2)
    }

    @Test func aChangeAnInterceptorRollsBackIsRecordedAsFailed() async throws {
        let workspace = Workspace()
        let late = try workspace.plugin(
            "late",
            """
            return { name = "late", interceptors = { function(item, next)
              next(item)
              if item.payload and item.payload.fail then error("refused after the fact") end
            end } }
            """)
        let journal = try Journal.inMemory(configuration: .init(durability: .strict))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally(), late], journal: journal)
        try await host.dispatch("tally.add", ["by": 2]).value
        await #expect(throws: PluginError.self) {
            try await host.dispatch("tally.add", ["by": 5, "fail": true] as JSONValue).value
        }
        try await host.dispatch("tally.add", ["by": 1]).value
        let entries = try journal.entries()
        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(entries[1].patch.isEmpty)
        guard case .failed(let message) = entries[1].outcome else {
            Issue.record("a rolled-back change is recorded as \(entries[1].outcome)")
            return
        }
        #expect(message.contains("refused after the fact"))
        #expect(entries[2].patch.changes == [.init(path: [.key("count")], value: 3)])
        #expect(try journal.state() == host.state)
    }

    /// An interceptor renaming an item into one of the other kind makes the store dispatch the new one
    /// through the whole chain: it is recorded once, as it runs, and replays as recorded.
    @Test func anItemRenamedIntoTheOtherKindIsRecordedOnceAsItRuns() async throws {
        let workspace = Workspace()
        let switcher = try workspace.plugin(
            "switch",
            """
            return { name = "switch", interceptors = { function(item, next)
              if item.name == "tally.twice" and item.payload.as_add then item.name = "tally.add" end
              if item.name == "tally.push" and item.payload.as_twice then item.name = "tally.twice"; item.payload = { by = 1 } end
              next(item)
            end } }
            """)
        let journal = try Journal.inMemory(configuration: .init(durability: .strict))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally(), switcher], journal: journal)
        try await host.dispatch("tally.twice", ["by": 3, "as_add": true] as JSONValue).value
        try await host.dispatch("tally.push", ["item": "x", "as_twice": true] as JSONValue).value
        await host.settle()
        let entries = try journal.entries()
        #expect(entries.map(\.name) == ["tally.add", "tally.twice", "tally.add", "tally.add"])
        #expect(entries.map(\.kind) == [.updater, .sideEffect, .updater, .updater])
        #expect(entries[0].patch.changes == [.init(path: [.key("count")], value: 3)])
        #expect(try journal.state() == ["count": 5])
        let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: [try workspace.tally(), switcher]))
        #expect(report.divergence == nil)
        #expect(report.matched == 3)
    }

    @Test func aPlainStoreRecordsSwiftItemsByType() async throws {
        struct Bump: StateUpdater, Encodable {
            var by: Int
            func updateState(_ state: inout TallyState) { state.count += by }
        }
        let journal = try Journal.inMemory()
        try journal.begin(with: TallyState())
        let store = Store<TallyState, EmptySideEffectDependencyContainer>(interceptors: [journal.recorder()])
        try await store.dispatch(Bump(by: 3)).value
        let entries = try journal.entries()
        #expect(entries.map(\.name) == ["Bump"])
        #expect(entries[0].plugin == nil && entries[0].source == "swift")
        #expect(entries[0].payload == ["by": 3])
        #expect(try journal.state() == ["count": 3, "items": []])
    }
}
