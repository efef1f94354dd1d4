import Foundation
import MoonbladeHost
import MoonbladeJournal
import Testing

/// Many dispatchers, two journals on one file, and a journal closed under a busy host.
@Suite struct JournalConcurrencyTests {
    /// The items the entries pushed, in the journal's order.
    private func pushedItems(_ entries: [JournalEntry]) -> [JSONValue] {
        entries.compactMap { $0.outcome == .applied ? $0.payload?["item"] : nil }
    }

    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func theJournalsOrderIsTheOrderApplied(durability: Journal.Configuration.Durability) async throws {
        let workspace = Workspace()
        let journal = try Journal(path: workspace.path("app.journal"), configuration: .init(durability: durability, snapshotInterval: 7))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try await host.dispatch("tally.push", JSONValue.object(["item": .string("\(task)-\(index)")])).value
                    }
                }
            }
            try await group.waitForAll()
        }
        let entries = try journal.entries()
        #expect(entries.map(\.sequence) == Array(1...200))
        #expect(.array(pushedItems(entries)) == host.state["items"])
        #expect(try journal.state() == host.state)
        try journal.close()
        #expect(try Journal.existing(at: workspace.path("app.journal")).state() == host.state)
    }

    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func readingWhileDispatchingSeesWholeEntries(durability: Journal.Configuration.Durability) async throws {
        let workspace = Workspace()
        let journal = try Journal(path: workspace.path("app.journal"), configuration: .init(durability: durability, snapshotInterval: 4))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<3 {
                group.addTask {
                    for index in 0..<40 {
                        try await host.dispatch("tally.push", JSONValue.object(["item": .string("\(task)-\(index)")])).value
                    }
                }
            }
            group.addTask {
                // Each read is of a whole, gapless journal whose states are its patches folded.
                for _ in 0..<15 {
                    let entries = try journal.entries()
                    #expect(entries.map(\.sequence) == Array(0..<entries.count).map { $0 + 1 })
                    let folded = try entries.reduce(JSONValue.object([:])) { state, entry in try entry.patch.applied(to: state) }
                    let last = entries.last?.sequence ?? 0
                    #expect(try journal.state(at: last) ?? [:] == folded)
                    #expect(try journal.check().entries >= entries.count)
                }
            }
            try await group.waitForAll()
        }
        #expect(try journal.state() == host.state)
        try journal.close()
    }

    @Test func aSecondJournalOnTheSameFileIsRefused() async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let first = try Journal(path: path)
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: first)
        try await host.dispatch("tally.push", ["item": "a"]).value
        try first.flush()
        #expect {
            _ = try Journal(path: path)
        } throws: { error in
            (error as? JournalError)?.file == path && "\(error)".contains("in use")
        }
        // Reading is not writing: a running host's journal can be checked and read.
        let live = try Journal.existing(at: path)
        #expect(try live.entries().count == 1)
        try live.close()
        // The first goes on recording as if nothing happened.
        try await host.dispatch("tally.push", ["item": "b"]).value
        try first.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-lock"))
        // A closed journal answers with errors, not a crash; closing again does nothing.
        #expect(throws: JournalError.self) { _ = try first.entries() }
        #expect(throws: JournalError.self) { _ = try first.state() }
        try first.close()
        let reader = try Journal.existing(at: path)
        #expect(try reader.check().entries == 2)
        #expect(try reader.state() == ["items": ["a", "b"]])
        try reader.close()
        // Once closed, the file can be opened again for writing.
        try Journal(path: path).close()
    }

    @Test(arguments: [Journal.Configuration.Durability.groupCommit, .strict])
    func closingUnderABusyHostLeavesASoundJournal(durability: Journal.Configuration.Durability) async throws {
        let workspace = Workspace()
        let path = workspace.path("app.journal")
        let journal = try Journal(path: path, configuration: .init(durability: durability, snapshotInterval: 5))
        let host = try PluginHost<JSONValue>(plugins: [try workspace.tally()], journal: journal)
        // Each dispatching task returns the items whose dispatch resolved.
        let resolved = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<4 {
                group.addTask {
                    var resolved: [String] = []
                    for index in 0..<60 {
                        let item = "\(task)-\(index)"
                        if (try? await host.dispatch("tally.push", JSONValue.object(["item": .string(item)])).value) != nil {
                            resolved.append(item)
                        }
                    }
                    return resolved
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(20))
                try journal.close()
                return []
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let reader = try Journal.existing(at: path)
        let summary = try reader.check()
        let recorded = pushedItems(try reader.entries()).compactMap(\.stringValue)
        #expect(summary.entries == recorded.count)
        // The recorded pushes are the first ones the host applied, in its order, and rebuild.
        let applied = host.state["items"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Array(applied.prefix(recorded.count)) == recorded)
        #expect(try reader.state() == (recorded.isEmpty ? [:] : ["items": .array(recorded.map { .string($0) })]))
        if durability == .strict {
            // Nothing that resolved is missing: a dispatch the closed journal could not record failed.
            #expect(Set(resolved).isSubset(of: Set(recorded)))
        }
    }
}
