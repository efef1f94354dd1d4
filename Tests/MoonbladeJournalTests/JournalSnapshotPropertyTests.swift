import Foundation
import MoonbladeHost
import MoonbladeJournal
import MoonbladeTestSupport
import Testing

/// Snapshots agree with replay: for random dispatch sequences, random snapshot intervals and
/// restarts in between, the state as of every sequence is the same whether rebuilt from the nearest
/// snapshot or from the start, and is what the host held after that dispatch.
@Suite(.serialized) struct JournalSnapshotPropertyTests {
    @Test(arguments: 0..<6 as Range<UInt64>)
    func replayFromAnySnapshotIsReplayFromTheStart(seed: UInt64) async throws {
        var generator = SplitMix(seed: seed &* 7919 &+ 1)
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let durability: Journal.Configuration.Durability = Bool.random(using: &generator) ? .strict : .groupCommit
        let configuration = Journal.Configuration(durability: durability, snapshotInterval: Int.random(in: 1...5, using: &generator))
        var held: [JSONValue] = [[:]]  // the host's state after each sequence
        for _ in 0..<Int.random(in: 1...3, using: &generator) {  // sessions, each recovering the last
            let journal = try Journal(path: path, configuration: configuration)
            let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
            #expect(host.state == held.last!)
            for _ in 0..<Int.random(in: 0...25, using: &generator) {
                let dispatch: (String, JSONValue?) =
                    switch Int.random(in: 0..<5, using: &generator) {
                    case 0: ("tally.add", ["by": .integer(Int64.random(in: -3...3, using: &generator))])
                    case 1: ("tally.pop", nil)
                    case 2: ("tally.fail", nil)
                    default: ("tally.push", ["item": .string(["a", "b", "c"].randomElement(using: &generator)!)])
                    }
                _ = try? await host.dispatch(dispatch.0, dispatch.1).value
                held.append(host.state)
            }
            try journal.close()
        }
        let reader = try Journal.existing(at: path)
        _ = try reader.check()
        let entries = try reader.entries()
        #expect(entries.count == held.count - 1)
        var fromStart = try reader.state(at: 0) ?? [:]
        #expect(fromStart == [:])
        for entry in entries {
            fromStart = try entry.patch.applied(to: fromStart)
            #expect(try reader.state(at: entry.sequence) == fromStart, "seed \(seed), at \(entry.sequence)")
            #expect(fromStart == held[entry.sequence], "seed \(seed), at \(entry.sequence)")
        }
    }
}
