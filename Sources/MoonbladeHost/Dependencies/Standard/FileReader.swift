import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file, or says in one wording why not: `cannot read <path>: <what went wrong>`.
///
/// The one reader of the state files the command line takes, plugin sources and specs, and
/// ``KeyValueStorage`` values; ``AtomicFile`` is its writing twin. A symbolic link is followed. Only
/// regular files are read: a FIFO, socket or device is refused without waiting on it, so no hostile
/// plugin folder can hang the host. A file larger than the caller's limit is refused before it is read
/// (and one that grows while read, or whose size says nothing, once the limit is passed), so no input
/// can make the host hold gigabytes.
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
    /// Only a regular file is read: a FIFO, a socket, a device or a folder is refused before it is
    /// opened (opening a FIFO that nobody writes to waits forever), and again once it is open, in case
    /// another file was put in its place in between.
    ///
    /// - Parameters:
    ///   - shown: how errors name the file, when `path` is not what its reader should see (a plugin's
    ///     module is named inside its folder, never by the host's absolute path).
    ///   - limit: the most bytes taken; a larger file is ``FileReadError/Problem/tooBig(limit:)``.
    package static func bytes(at path: String, shownAs shown: String? = nil, limit: Int = defaultLimit)
        throws(FileReadError) -> [UInt8]
    {
        let fail = { (problem: FileReadError.Problem) in FileReadError(path: shown ?? path, problem: problem) }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail(errno == ENOENT ? .missing : .system(errno)) }
        if let problem = FileReadError.Problem(notRegular: info.st_mode) { throw fail(problem) }
        // A FIFO swapped in since the check opens at once (non-blocking), and a terminal does not become
        // the host's; either is refused below.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw fail(errno == ENOENT ? .missing : .system(errno)) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw fail(.system(errno)) }
        if let problem = FileReadError.Problem(notRegular: info.st_mode) { throw fail(problem) }
        if info.st_size > limit { throw fail(.tooBig(limit: limit)) }
        // A byte more than the size, so the read that meets the end needs no room of its own. More room
        // is made only when the file holds more than its size said (it grew, or it is one whose size
        // says nothing of what it holds, as `/proc/self/maps`), up to a byte past the limit.
        var capacity = Int(info.st_size) + 1
        var bytes: [UInt8] = []
        while true {
            let (read, ended, failure) = readMore(descriptor, after: bytes, capacity: capacity)
            if let failure { throw fail(.system(failure)) }
            // Ended before the room was full: at most `capacity - 1` bytes, within the limit.
            if ended { return read }
            guard capacity <= limit else { throw fail(.tooBig(limit: limit)) }
            bytes = read
            capacity = min(max(capacity * 2, 1 << 16), limit) + 1
        }
    }

    /// `bytes` and then what `descriptor` holds next, read into the rest of `capacity` bytes that are
    /// not zeroed first; `ended` when the file ended before they were full, `failure` the `errno` of
    /// a read that failed.
    private static func readMore(_ descriptor: Int32, after bytes: [UInt8], capacity: Int)
        -> (bytes: [UInt8], ended: Bool, failure: Int32?)
    {
        var ended = false
        var failure: Int32?
        let all = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
            while count < buffer.count, !ended, failure == nil {
                let got = read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if got > 0 {
                    count += got
                } else if got == 0 {
                    ended = true
                } else if errno != EINTR {
                    failure = errno
                }
            }
        }
        return (all, ended, failure)
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
        /// The path is a FIFO, a socket or a device: never read, since its reads may wait forever or
        /// never end.
        case special(SpecialFile)
        /// The file is larger than `limit` bytes.
        case tooBig(limit: Int)
        /// The file's bytes are not UTF-8 from `line` on, where text is required.
        case notUTF8(line: Int)
        /// The system refused, with this `errno` (`EACCES`, `ENOTDIR`, `EIO`, ...).
        case system(Int32)
    }

    /// A kind of file that is never read, as the error names it.
    package enum SpecialFile: String, Sendable {
        case fifo = "a FIFO"
        case socket = "a socket"
        case characterDevice = "a character device"
        case blockDevice = "a block device"
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
            case .special(let kind): "it is not a regular file (\(kind.rawValue))"
            case .tooBig(let limit): "it is larger than \(limit) bytes"
            case .notUTF8(let line): "line \(line) is not UTF-8 text; save the file as UTF-8"
            case .system(let code): String(cString: strerror(code))
            }
        return "cannot read \(path): \(what)"
    }
}

extension FileReadError.Problem {
    /// Why a file of `mode` (as `stat` gives it) is not read, or nil for a regular file.
    fileprivate init?(notRegular mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .special(.fifo)
        case S_IFSOCK: self = .special(.socket)
        case S_IFBLK: self = .special(.blockDevice)
        // The one type left: `stat` and `fstat` follow links, so the file is never a link itself.
        default: self = .special(.characterDevice)
        }
    }
}
