import Dispatch
import Foundation
import Moonblade

/// Ctrl-C (SIGINT) and SIGTERM as a request to stop that a watching `run` answers by finishing in
/// order: the dispatch in flight settles (or is abandoned after ``grace``), the state is saved and
/// printed, and the run exits 128 + the signal (130, 143). A second signal ends the process at once.
final class StopSignals: @unchecked Sendable {
    // @unchecked Sendable: `first` is touched only inside `lock` (a pthread lock, which
    // ThreadSanitizer sees); the sources are set up in `init` and never changed.
    private let lock = Lock()
    private var first: Int32?
    private var sources: [any DispatchSourceSignal] = []

    /// How long the dispatch in flight may take to settle once a stop is asked for.
    static let grace = Duration.seconds(5)

    /// Starts catching SIGINT and SIGTERM instead of dying of them.
    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)  // delivered to the source below instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func receive(_ number: Int32) {
        // The next one takes the default way out: a run that will not stop can still be stopped.
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        lock.withLock { first = first ?? number }
    }

    /// The first signal received, if any.
    var received: Int32? { lock.withLock { first } }

    /// The exit code for the signal received: 128 + its number.
    var exitCode: Int32? { received.map { 128 + $0 } }

    /// Returns once a signal has come (at once if one has), or nil when the task is cancelled first.
    func wait() async -> Int32? {
        while true {
            if let received { return received }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }
        }
    }
}
