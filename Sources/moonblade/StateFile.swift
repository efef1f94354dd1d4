import Foundation
import MoonbladeHost

/// Reading a state from a JSON file and saving one atomically; failures are ``ExitStatus/fileFailed``.
enum StateFile {
    /// The state in the JSON file at `path`: an object.
    static func read(_ path: String) throws -> JSONValue {
        let data: [UInt8]
        do throws(FileReadError) {
            data = try FileReader.bytes(at: path)
        } catch {
            throw fail("\(error)")
        }
        let state: JSONValue
        do {
            state = try JSONValue(json: data)
        } catch {
            throw fail("the state file \(path) is not valid JSON: \(error)")
        }
        // Plugins see the state as a table of fields; a bare number or list is not a state they can use.
        guard case .object = state else { throw fail("the state file \(path) must hold a JSON object") }
        return state
    }

    /// Checks, before a session does any work, that `path` can be saved to later: not a folder, in a
    /// folder that exists and may be written. (The save itself can still fail, e.g. on a full disk.)
    static func checkSavable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw fail("cannot save the state to \(path): it is a folder")
        }
        let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
        guard access(folder, W_OK) == 0 else {
            throw fail("cannot save the state to \(path): \(folder): \(String(cString: strerror(errno)))")
        }
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
