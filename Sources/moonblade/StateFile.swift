import Foundation
import MoonbladeHost

/// Reading a state from a JSON file and saving one atomically; failures are ``ExitStatus/fileFailed``.
enum StateFile {
    /// The state in the JSON file at `path`: an object.
    static func read(_ path: String) throws -> JSONValue {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw fail("cannot read the state file \(path): \(error.localizedDescription)")
        }
        let state: JSONValue
        do {
            state = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw fail("the state file \(path) is not valid JSON")
        }
        // Plugins see the state as a table of fields; a bare number or list is not a state they can use.
        guard case .object = state else { throw fail("the state file \(path) must hold a JSON object") }
        return state
    }

    /// Writes `state` as pretty JSON to `path`: all of it or, if that fails, nothing (an earlier file
    /// stays as it was).
    static func save(_ state: JSONValue, to path: String) throws {
        do {
            try AtomicFile.write(
                Data((state.jsonString(pretty: true) + "\n").utf8), to: URL(fileURLWithPath: path))
        } catch {
            throw fail("cannot save the state: \(error)")
        }
    }

    private static func fail(_ message: String) -> Error {
        Console.printError("error: \(message)")
        return ExitStatus.fileFailed.code
    }
}
