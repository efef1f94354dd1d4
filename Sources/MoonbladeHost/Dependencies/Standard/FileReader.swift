import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file, or says in one wording why not: `cannot read <path>: <what went wrong>`.
///
/// The one reader of the state files the command line takes, plugin sources and specs, and
/// ``KeyValueStorage`` values; ``AtomicFile`` is its writing twin. A symbolic link is followed. A file
/// larger than the caller's limit is refused before it is read (and a file that keeps growing, such
/// as `/dev/zero`, once the limit is passed), so no input can make the host hold gigabytes.
package enum FileReader {
    /// Whether `path` is a folder (a link to one counts).
    package static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The size refused by default: no state or stored value the host handles comes near it.
    package static let defaultLimit = 256 << 20
    /// The size refused for a plugin's Lua files and specs: far more text than any plugin is.
    package static let sourceLimit = 16 << 20

    /// The bytes of the file at `path`.
    ///
    /// - Parameters:
    ///   - shown: how errors name the file, when `path` is not what its reader should see (a plugin's
    ///     module is named inside its folder, never by the host's absolute path).
    ///   - limit: the most bytes taken; a larger file is ``FileReadError/Problem/tooBig(limit:)``.
    package static func bytes(at path: String, shownAs shown: String? = nil, limit: Int = defaultLimit)
        throws(FileReadError) -> [UInt8]
    {
        let fail = { (problem: FileReadError.Problem) in FileReadError(path: shown ?? path, problem: problem) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fail(errno == ENOENT ? .missing : .system(errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fail(.system(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { throw fail(.folder) }
        if info.st_size > limit { throw fail(.tooBig(limit: limit)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(Int(info.st_size), 0))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw fail(.system(errno))
            }
            // Checked as it is read too: a special file's size says nothing of what it holds.
            guard bytes.count + count <= limit else { throw fail(.tooBig(limit: limit)) }
            bytes += chunk[..<count]
        }
    }

    /// The UTF-8 text of the file at `path`, a byte order mark left out; a file in another encoding
    /// (Latin-1, say) is ``FileReadError/Problem/notUTF8(line:)`` naming its first line that is not UTF-8.
    package static func text(at path: String, shownAs shown: String? = nil, limit: Int = defaultLimit)
        throws(FileReadError) -> String
    {
        var bytes = try bytes(at: path, shownAs: shown, limit: limit)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        // A line break byte is never part of a longer UTF-8 sequence: lines can be checked one by one.
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let line = lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0
        throw FileReadError(path: shown ?? path, problem: .notUTF8(line: line + 1))
    }
}

/// Why a file could not be read: `cannot read plugins/todo/plugin.lua: no such file`.
package struct FileReadError: Error, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Problem: Equatable, Sendable {
        /// Nothing is at the path (or a link there leads nowhere).
        case missing
        /// The path is a folder.
        case folder
        /// The file is larger than `limit` bytes.
        case tooBig(limit: Int)
        /// The file's bytes are not UTF-8 from `line` on, where text is required.
        case notUTF8(line: Int)
        /// The system refused, with this `errno` (`EACCES`, `ENOTDIR`, `EIO`, ...).
        case system(Int32)
    }

    /// The file, as the caller names it.
    package var path: String
    package var problem: Problem

    /// The line the problem is at, if it has one.
    package var line: Int? {
        if case .notUTF8(let line) = problem { line } else { nil }
    }

    package var description: String {
        let what =
            switch problem {
            case .missing: "no such file"
            case .folder: "it is a folder"
            case .tooBig(let limit): "it is larger than \(limit) bytes"
            case .notUTF8(let line): "line \(line) is not UTF-8 text; save the file as UTF-8"
            case .system(let code): String(cString: strerror(code))
            }
        return "cannot read \(path): \(what)"
    }
}
