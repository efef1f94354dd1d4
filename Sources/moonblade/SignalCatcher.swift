import Foundation
import Synchronization

/// What the signal handler may touch (lock-free atomics; `write(2)` and `signal(2)` are
/// async-signal-safe): the pipe's write end (-1 when no catcher runs), and the signals to put back
/// to their default action once one has been caught (a bit per signal number; 0: keep catching).
private let pipeToCatcher = Atomic<Int32>(-1)
private let defaultAfterFirst = Atomic<UInt64>(0)

/// Catches signals with a plain handler and hands each to Swift code on a thread of its own.
///
/// Not a dispatch signal source: on Linux one reads its signal from a descriptor (`signalfd`) and
/// misses it when the signal reaches a thread that does not block it (under the thread sanitizer,
/// every Ctrl-C of a repl waiting for a side effect was lost), and its handler waits for a thread of
/// the shared pool, which a side effect whose awaits answer at once holds until it ends. Here the
/// handler only writes the signal's number to a pipe; a thread blocked reading it calls `onSignal`.
/// One catcher at a time in a process.
final class SignalCatcher: Sendable {
    private let signals: [Int32]
    private let writeEnd: Int32

    /// Catches `signals` until this catcher goes; `onSignal` is called with each, in order, on the
    /// catcher's thread. With `resettingAfterFirst`, the first caught signal puts all of them back to
    /// their default action: the next one ends the process.
    init(_ signals: [Int32], resettingAfterFirst: Bool = false, onSignal: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fatalError("cannot make a pipe for signals: \(String(cString: strerror(errno)))") }
        let readEnd = ends[0]
        self.signals = signals
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        Thread.detachNewThread {
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count == 1 {
                    onSignal(Int32(number))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break  // the write end closed: the catcher is gone
                }
            }
            close(readEnd)
        }
        pipeToCatcher.store(writeEnd, ordering: .sequentiallyConsistent)
        defaultAfterFirst.store(
            resettingAfterFirst ? signals.reduce(0) { $0 | 1 << UInt64($1) } : 0, ordering: .sequentiallyConsistent)
        for number in signals {
            signal(number) { number in
                let reset = defaultAfterFirst.exchange(0, ordering: .relaxed)
                for other in 1..<64 where reset & 1 << UInt64(other) != 0 {
                    signal(Int32(other), SIG_DFL)
                }
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(pipeToCatcher.load(ordering: .relaxed), &byte, 1)
            }
        }
    }

    deinit {
        for number in signals { signal(number, SIG_DFL) }
        pipeToCatcher.store(-1, ordering: .sequentiallyConsistent)
        close(writeEnd)
    }
}
