import Foundation
import MoonbladeHost

/// Reading a state from a JSON file and saving one atomically; failures are ``ExitStatus/fileFailed``.
enum StateFile {
    /// The state in the JSON file at `path`: an object.
    static func read(_ path: String) throws -> JSONValue {
        let data: [UInt8]
        do {
            data = try contents(of: path)
        } catch {
            throw fail("cannot read the state file \(path): \(error.reason)")
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

    /// The bytes of the file at `path`; the error says why not in the system's words (`No such file
    /// or directory`, `Is a directory`, `Permission denied`).
    private static func contents(of path: String) throws(ReadFailure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadFailure() }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure()
            }
            bytes += chunk[..<count]
        }
    }

    /// Why a file could not be read: the system's words for `errno` when it was made.
    private struct ReadFailure: Error {
        var reason = String(cString: strerror(errno))
    }

    private static func fail(_ message: String) -> Error {
        Console.printError("error: \(message)")
        return ExitStatus.fileFailed.code
    }
}
