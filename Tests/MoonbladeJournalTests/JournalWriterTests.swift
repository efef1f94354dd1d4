import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeJournal
import Testing

/// The writer turns queued states into patches in its batches: in order, from shared collections, and
/// with a state that has no JSON form reported as a journal error.
@Suite struct JournalWriterTests {
    struct Wide: State, Codable, Equatable {
        var big: UInt64 = 0
        var items = (0..<100).map { "item \($0)" }
    }

    struct SetBig: StateUpdater, Encodable {
        var to: UInt64
        func updateState(_ state: inout Wide) { state.big = to }
    }

    struct SetItem: StateUpdater, Encodable {
        var at: Int
        var to: String
        func updateState(_ state: inout Wide) { state.items[at] = to }
    }

    private func journaledStore(_ durability: Journal.Configuration.Durability, snapshotInterval: Int = 3) throws
        -> (Journal, Store<Wide, EmptySideEffectDependencyContainer>)
    {
        // A long commit interval keeps what is dispatched between two flushes in one batch.
        let journal = try Journal.inMemory(
            configuration: .init(durability: durability, snapshotInterval: snapshotInterval, commitInterval: .seconds(5)))
        try journal.begin(with: Wide())
        return (journal, Store(interceptors: [journal.recorder()]))
    }

    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func patchesFollowTheDispatchesInOrder(durability: Journal.Configuration.Durability) async throws {
        let (journal, store) = try journaledStore(durability)
        for round in 1...5 {
            try await store.dispatch(SetBig(to: UInt64(round))).value
            try await store.dispatch(SetItem(at: round, to: "changed \(round)")).value
        }
        try journal.flush()
        let entries = try journal.entries()
        #expect(entries.map(\.sequence) == Array(1...10))
        for round in 1...5 {
            #expect(entries[2 * round - 2].patch.changes == [.init(path: [.key("big")], value: .integer(Int64(round)))])
            #expect(entries[2 * round - 1].patch.changes == [.init(path: [.key("items"), .index(round)], value: .string("changed \(round)"))])
        }
        #expect(try journal.state(as: Wide.self) == store.state)
    }

    /// With group commit the failed state's whole batch is lost (the entry before it too); the patches
    /// after it are computed from the last committed state, so the journal still rebuilds the store's
    /// (from the patches alone: no snapshot is taken on the way).
    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func aStateWithoutAJSONFormIsAJournalErrorAndLaterStatesStillRebuild(durability: Journal.Configuration.Durability) async throws {
        let (journal, store) = try journaledStore(durability, snapshotInterval: 1000)
        try await store.dispatch(SetItem(at: 0, to: "first")).value
        try journal.flush()
        var error: JournalError?
        do {
            try await store.dispatch(SetItem(at: 2, to: "in the failed batch")).value
            try await store.dispatch(SetBig(to: .max)).value
            try journal.flush()
        } catch let journalError as JournalError {
            error = journalError
        }
        #expect(error?.description.contains("entry 3 (SetBig): the state has no JSON form") == true)
        #expect(error?.description.contains("does not fit in a 64-bit integer") == true)

        try await store.dispatch(SetBig(to: 1)).value
        try await store.dispatch(SetItem(at: 1, to: "second")).value
        try journal.flush()
        #expect(try journal.entries().map(\.sequence) == (durability == .strict ? [1, 2, 4, 5] : [1, 4, 5]))
        #expect(try journal.state(as: Wide.self) == store.state)
    }

    /// An error whose message is empty.
    struct Silent: Error, CustomStringConvertible {
        var description: String { "" }
    }

    /// Rows are bound from bytes: texts with escapes and multi-byte characters, and an empty one (which
    /// must stay a text, not become NULL), read back as written and match their checksums.
    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func everyTextReadsBackAsWritten(durability: Journal.Configuration.Durability) async throws {
        let journal = try Journal.inMemory(configuration: .init(durability: durability))
        try journal.begin(with: Wide())
        let silencer: StoreInterceptor = { _ in
            { next in
                { item in
                    if item is SetBig { throw Silent() }
                    try next(item)
                }
            }
        }
        let store = Store<Wide, EmptySideEffectDependencyContainer>(interceptors: [journal.recorder(), silencer])
        let text = "é \"quoted\" \\ \n\t\u{1} 😀 \u{7f}"
        try await store.dispatch(SetItem(at: 3, to: text)).value
        await #expect(throws: Silent.self) { try await store.dispatch(SetBig(to: 1)).value }
        try await store.dispatch(SetItem(at: 4, to: "")).value
        // Throws for a row that does not match its checksum.
        let entries = try journal.entries()
        #expect(entries[0].payload == ["at": 3, "to": .string(text)])
        #expect(entries[0].patch.changes == [.init(path: [.key("items"), .index(3)], value: .string(text))])
        #expect(entries[1].outcome == .failed(""))
        #expect(entries[2].patch.changes == [.init(path: [.key("items"), .index(4)], value: "")])
        #expect(try journal.state(as: Wide.self) == store.state)
    }
}
