import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// What a crash leaves on disk: the journal and its write-ahead log as they were while the host ran,
/// the log cut at any point (a write the crash interrupted). Every such image opens, checks, and
/// holds the first dispatches without a gap, each state as the host had it.
@Suite struct JournalCrashImageTests {
    @Test func aLogCutAnywhereRecoversAPrefixOfTheDispatches() async throws {
        let workspace = Workspace()
        let path = workspace.path("live.journal")
        let journal = try Journal(path: path, configuration: .init(durability: .strict, snapshotInterval: 3))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        var held: [JSONValue] = [[:]]
        for index in 0..<8 {
            try await host.dispatch("tally.push", JSONValue.object(["item": .string("item \(index)")])).value
            held.append(host.state)
        }
        // The image of the disk while the host still runs: nothing checkpointed, all in the log.
        let database = try Data(contentsOf: URL(fileURLWithPath: path))
        let log = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(log.count > 8 * 4096, "the dispatches are in the log")
        let image = workspace.path("image.journal")
        var recoveredBefore = 0
        // A cut every 1,031 bytes (10,310 under sanitizers: each is ten times slower), and the whole log.
        for cut in stride(from: 0, through: log.count, by: 1031.stretchedForSanitizers) + [log.count] {
            await Task.yield()  // synchronous SQLite work per cut: let the pool's other tasks in
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: image + suffix) }
            try database.write(to: URL(fileURLWithPath: image))
            try log.prefix(cut).write(to: URL(fileURLWithPath: image + "-wal"))
            let recovered = try Journal(path: image)
            let entries = try recovered.entries()
            #expect(entries.map(\.sequence) == Array(0..<entries.count).map { $0 + 1 }, "cut at \(cut)")
            #expect(entries.count >= recoveredBefore, "cut at \(cut): a longer log holds no fewer dispatches")
            recoveredBefore = entries.count
            #expect(try recovered.state() ?? [:] == held[entries.count], "cut at \(cut)")
            #expect(try recovered.check().entries == entries.count, "cut at \(cut)")
            try recovered.close()
        }
        #expect(recoveredBefore == 8, "the whole log holds every dispatch")
        try journal.close()
    }
}
