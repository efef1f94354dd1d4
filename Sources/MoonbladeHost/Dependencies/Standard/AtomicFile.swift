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
package enum AtomicFile {
    /// Replaces the file at `url` with `data`, atomically.
    package static func write(_ data: Data, to url: URL) throws(AtomicFileError) {
        let target = url.path
        var template = Array(
            url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).XXXXXX").path
                .utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw AtomicFileError(path: target, doing: "create a temporary file for")
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var replaced = false
        defer { if !replaced { unlink(temporary) } }

        var failure: AtomicFileError?
        // mkstemp makes the file private (0600); a saved file should read like any other the user writes.
        if fchmod(descriptor, 0o644) != 0 || !writeAll(data, to: descriptor) || fsync(descriptor) != 0 {
            failure = AtomicFileError(path: target, doing: "write")
        }
        if close(descriptor) != 0, failure == nil { failure = AtomicFileError(path: target, doing: "write") }
        if let failure { throw failure }
        guard rename(temporary, target) == 0 else { throw AtomicFileError(path: target, doing: "replace") }
        replaced = true
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
