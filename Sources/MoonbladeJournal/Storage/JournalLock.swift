import Foundation
import Moonblade

#if canImport(Glibc)
import Glibc
#endif

/// The lock that makes a journal file's writer the only one: an advisory `flock` on `FILE-lock`,
/// held while the journal is open. A second journal (in this process or another) opening the file
/// for writing would number its entries like the first and lose them on commit, so it is refused.
///
/// A separate file, not the journal itself: closing a descriptor of the journal would drop the
/// POSIX locks SQLite holds on it in this process. Readers (check, replay, specs) take no lock, so
/// a running host's journal can still be read.
final class JournalLock: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is touched only under `lock` (a pthread `Lock`, which the thread
    // sanitizer follows; it does not follow `Synchronization.Mutex`).
    private let path: String
    private let lock = Lock()
    /// The locked lock file's descriptor; nil once released (a journal may be closed twice).
    private var descriptor: Int32?

    /// Takes the lock of the journal at `file`.
    ///
    /// - Throws: ``JournalError`` when another journal holds it, or the lock file cannot be made.
    init(file: String) throws(JournalError) {
        path = file + "-lock"
        // The holder removes the file when it closes; a lock taken on a file already removed is
        // taken again on the new one.
        for _ in 0..<3 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw JournalError(file: file, problem: "cannot be opened (its lock file \(path): \(String(cString: strerror(errno))))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw JournalError(file: file, problem: "is in use by another journal (one writer per file; close it first)")
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
        throw JournalError(file: file, problem: "is in use by another journal (its lock file keeps changing)")
    }

    /// Removes the lock file and releases the lock; later calls do nothing.
    func release() {
        let released: Int32? = lock.withLock {
            defer { descriptor = nil }
            return descriptor
        }
        guard let descriptor = released else { return }
        unlink(path)
        close(descriptor)
    }
}
