import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files all at once or not at all: a reader sees the old file or the new one, never half of one.
///
/// The data goes to a temporary file in the target's own directory (so the final `rename` stays on one
/// file system and is atomic), is flushed to disk, and then replaces the target. If anything fails,
/// the temporary file is removed and the earlier file, if any, is left as it was.
///
/// A replaced file keeps its permissions; a new one gets those of any file the user creates (0666 less
/// the umask). A symbolic link is followed: its target is replaced.
package enum AtomicFile {
    /// Replaces the file at `url` with `data`, atomically.
    package static func write(_ data: Data, to url: URL) throws(AtomicFileError) {
        // A link is followed: its target is replaced and the link stays (renaming onto the link
        // would replace the link itself with a file).
        var link = stat()
        let url = lstat(url.path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK ? url.resolvingSymlinksInPath() : url
        let target = url.path
        let (descriptor, temporary) = try createTemporaryFile(next: url)
        var replaced = false
        defer { if !replaced { unlink(temporary) } }

        var failure: AtomicFileError?
        var earlier = stat()
        let keepsMode = stat(target, &earlier) == 0
        if keepsMode && fchmod(descriptor, earlier.st_mode & 0o7777) != 0 || !writeAll(data, to: descriptor)
            || fsync(descriptor) != 0
        {
            failure = AtomicFileError(path: target, doing: "write")
        }
        if close(descriptor) != 0, failure == nil { failure = AtomicFileError(path: target, doing: "write") }
        if let failure { throw failure }
        guard rename(temporary, target) == 0 else { throw AtomicFileError(path: target, doing: "replace") }
        replaced = true
    }

    /// Creates a new file named `.<name>.<random>` next to `url`, with the creation mode the umask
    /// leaves of 0666 (`mkstemp` would make it 0600 whatever the umask), and opens it for writing.
    private static func createTemporaryFile(next url: URL) throws(AtomicFileError) -> (descriptor: Int32, path: String) {
        let directory = url.deletingLastPathComponent()
        for _ in 0..<100 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let path = directory.appendingPathComponent(".\(url.lastPathComponent).\(suffix)").path
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return (descriptor, path) }
            if errno != EEXIST { break }
        }
        throw AtomicFileError(path: url.path, doing: "create a temporary file for")
    }
}

/// Writes all of `data` to `descriptor`, retrying short and interrupted writes. (At file scope, where
/// `write` is the system call rather than ``AtomicFile/write(_:to:)``.)
private func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
    data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

/// Why an atomic write failed: `cannot write /data/state.json: Permission denied`.
package struct AtomicFileError: Error, CustomStringConvertible {
    package var path: String
    package var reason: String
    private var doing: String

    /// Captures `errno` now, before anything else can change it.
    init(path: String, doing: String) {
        self.path = path
        self.doing = doing
        reason = String(cString: strerror(errno))
    }

    package var description: String { "cannot \(doing) \(path): \(reason)" }
}
