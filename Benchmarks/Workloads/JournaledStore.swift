import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeJournal

/// A plugin host running `bench` with every dispatch recorded in a journal file of its own, removed
/// when this is released.
public final class JournaledStore<S: State & Codable> {
    public let host: PluginHost<S>
    public let journal: Journal
    private let directory: URL

    public init(initialState: S, durability: Journal.Configuration.Durability) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("moonblade-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        journal = try Journal(
            path: directory.appendingPathComponent("bench.journal").path,
            configuration: .init(durability: durability))
        host = try PluginHost<S>(plugins: [BenchmarkFiles.plugin("bench")], journal: journal, initialState: initialState)
        if let problem = host.loadErrors.first { throw problem }
    }

    deinit {
        try? journal.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
