import Foundation
import Logging
import MoonbladeHost
import MoonbladeHummingbird
import MoonbladeJournal

/// The plugin host a server runs: its state from a file or a journal, the standard dependencies,
/// its events for the stream.
struct ServedHost {
    let host: PluginHost<JSONValue>
    let events = HostEvents()
    let journal: Journal?
    let logger: Logger

    /// Loads `plugins` on the state in `stateFile` (else the journal's latest, else `{}`).
    ///
    /// - Throws: when a plugin does not load, or the state file or the journal cannot be read.
    init(plugins: [String], stateFile: String?, journalPath: String?, dataDirectory: String, logger: Logger) throws {
        self.logger = logger
        let initialState = try stateFile.map(Self.readState)
        let dependencies = PluginDependencies.standard(dataDirectory: URL(fileURLWithPath: dataDirectory), logger: logger)
        let configuration = PluginHost<JSONValue>.Configuration(logger: events.logger(logger), tracer: events.tracer())
        let journal = try journalPath.map { try Journal(path: $0) }
        self.journal = journal
        if let journal {
            host = try PluginHost(
                plugins: plugins, journal: journal, initialState: initialState, dependencies: dependencies,
                interceptors: [events.interceptor()], configuration: configuration)
        } else {
            host = try PluginHost(
                plugins: plugins, initialState: initialState ?? JSONValue(), dependencies: dependencies,
                interceptors: [events.interceptor()], configuration: configuration)
        }
        if let error = host.loadErrors.first {
            throw ServeError(message: "plugin did not load: \(error)")
        }
    }

    /// Lets what is running finish, saves the state to `path` and closes the journal.
    func stop(savingTo path: String?) async throws {
        await host.settle()
        if let path {
            let text = host.state.jsonString(pretty: true) + "\n"
            do {
                try AtomicFile.write(Data(text.utf8), to: URL(fileURLWithPath: path))
            } catch {
                throw ServeError(message: "cannot save the state to \(path): \(error)")
            }
        }
        try journal?.close()
    }

    private static func readState(_ path: String) throws -> JSONValue {
        do {
            let state = try JSONValue(json: try FileReader.bytes(at: path))
            guard case .object = state else { throw ServeError(message: "the state file \(path) must hold a JSON object") }
            return state
        } catch let error as ServeError {
            throw error
        } catch {
            throw ServeError(message: "the state file \(path): \(error)")
        }
    }
}

/// Why the server did not start or stop cleanly, in one line.
struct ServeError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
