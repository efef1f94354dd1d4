import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A named pipe (`mkfifo`) that nobody writes to: what a hostile folder can hold where a file belongs.
/// Opening it to read waits for a writer, for ever.
public struct UnwrittenFIFO: Sendable {
    public let path: String

    /// Makes the pipe at `path`.
    public init(at path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.path = path
    }

    /// What `body` returns, run on a thread of its own. A `body` that waits on the pipe fails the
    /// test rather than hanging it: after a bound far longer than any read, an issue is recorded and
    /// the pipe is opened for writing once, so the waiting reader meets its end and `body` returns.
    public func returnsWithoutWaiting<Result: Sendable>(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> Result
    ) async -> Result {
        let result = Locked<Result?>(nil)
        Thread.detachNewThread {
            let value = body()
            result.withLock { $0 = value }
        }
        if await !eventually(timeout: .seconds(20), { result.withLock { $0 != nil } }) {
            Issue.record("\(path) was waited on, as if a writer might come", sourceLocation: sourceLocation)
            // A writer's open succeeds at once while a reader waits; closing it is the reader's end of file.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            await waitUntil(sourceLocation: sourceLocation) { result.withLock { $0 != nil } }
        }
        return result.withLock { $0! }
    }
}
