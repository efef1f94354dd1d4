import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// `kill -9` at random moments of a run that dispatches into a journal, several times over the same
/// file: the journal always checks, recovery is its recorded state, and under --strict-journal every
/// dispatch that resolved is in it.
@Suite("moonblade run --journal, killed", .serialized)
struct JournalCrashTests {
    let workspace = Workspace()

    @Test(arguments: [false, true])
    func repeatedKillsLeaveASoundJournalThatKeepsWhatResolved(strict: Bool) async throws {
        var generator = SystemRandomNumberGenerator()
        var resolvedBefore = 0  // the highest counter printed by any round, so resolved
        for round in 0..<3 {
            let running = try RunningMoonblade(
                ["run", shippedPlugin("counter"), "--journal", "app.journal", "--watch", "--print-state", "--snapshot-every", "7"]
                    + (strict ? ["--strict-journal"] : []),
                in: workspace.url)
            for _ in 0..<150 {
                try running.send("counter.increment")
            }
            // Round 0 dies before or while it opens the journal; the others after a random number of dispatches.
            let printed = round == 0 ? 0 : Int.random(in: 1...40, using: &generator)
            if printed > 0 {
                try await running.waitUntil("\(printed) applied dispatches") { stdout, _ in
                    stdout.split(separator: "\n").count >= printed
                }
            }
            let killed = try await running.kill()
            #expect(killed.status == SIGKILL)
            let counters = killed.stdout.split(separator: "\n").compactMap { line -> Int? in
                guard case .integer(let value)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))["counter"] else {
                    return nil
                }
                return Int(value)
            }
            resolvedBefore = max(resolvedBefore, counters.last ?? 0)

            guard FileManager.default.fileExists(atPath: workspace.url.appendingPathComponent("app.journal").path) else {
                #expect(round == 0, "round \(round): no journal")
                continue
            }
            let check = try await workspace.run("journal", "check", "app.journal")
            #expect(check.status == 0, "round \(round): \(check.stderr)")
            let restarted = try await workspace.run("run", shippedPlugin("counter"), "--journal", "app.journal")
            #expect(restarted.status == 0, "round \(round): \(restarted.stderr)")
            let recovered: Int =
                if case .integer(let value)? = try? restarted.json()["counter"] { Int(value) } else { 0 }
            // Recovery is the recorded state: one increment per entry, none invented.
            let journal = try Journal.existing(at: workspace.url.appendingPathComponent("app.journal").path)
            #expect(try journal.entries().count == recovered, "round \(round)")
            try journal.close()
            if strict {
                #expect(recovered >= resolvedBefore, "round \(round): resolved \(resolvedBefore), recovered \(recovered)")
            }
            resolvedBefore = max(resolvedBefore, recovered)
        }
    }
}
