import Foundation
import MoonbladeTestSupport
import Testing

/// A `moonblade` process a test talks to while it runs: lines go to its standard input through a pipe,
/// and its output is read from files as it grows.
final class RunningMoonblade {
    private let arguments: [String]
    private let process: Process
    private let input = Pipe()
    private let output: OutputFiles

    /// Starts `moonblade arguments...` in `directory`.
    init(_ arguments: [String], in directory: URL) throws {
        // A write after the process ended must fail, not kill the test run with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        self.arguments = arguments
        output = try OutputFiles(in: directory)
        process = try MoonbladeProcess.launch(arguments, standardInput: input, output: output, in: directory)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Writes `line` and a newline to the process's standard input.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until `condition` holds for the output so far, checking every 20 ms for at most `timeout`;
    /// records an issue and returns false if it never does.
    @discardableResult
    func waitUntil(
        _ what: String, timeout: Duration = Duration.seconds(30).allowingForSanitizers, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (_ stdout: String, _ stderr: String) -> Bool
    ) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // Looked at once more after the deadline: a poller woken late must not miss output that came in time.
        var (stdout, stderr) = try output.read()
        while !condition(stdout, stderr) {
            guard clock.now < deadline else {
                Issue.record(
                    "moonblade \(arguments.joined(separator: " ")): no \(what) within \(timeout)\nstdout: \(stdout)\nstderr: \(stderr)",
                    sourceLocation: sourceLocation)
                return false
            }
            try await Task.sleep(for: .milliseconds(20))
            (stdout, stderr) = try output.read()
        }
        return true
    }

    /// Sends the process the signal `number` (SIGINT, SIGTERM).
    func send(signal number: Int32) {
        Foundation.kill(process.processIdentifier, number)
    }

    /// On a thread of its own (``onAThreadOfItsOwn(once:after:timeout:_:)``): once the error output
    /// contains `marker`, sends the signal `number`, and `delay` later calls `then`.
    func send(
        signal number: Int32, onceErrorOutputContains marker: String, then delay: Duration = .zero,
        _ then: @escaping @Sendable () -> Void = {}
    ) {
        let (pid, stderr) = (process.processIdentifier, output.stderr)
        onAThreadOfItsOwn(once: { (try? String(contentsOf: stderr, encoding: .utf8))?.contains(marker) == true }) {
            Foundation.kill(pid, number)
            onAThreadOfItsOwn(once: { true }, after: delay, then)
        }
    }

    /// Kills the process with SIGKILL (no chance to clean up, like a crash) and waits for it to end.
    func kill() async throws -> Outcome {
        send(signal: SIGKILL)
        return try await waitForExit()
    }

    /// Waits for the process to exit by itself, standard input still open.
    func waitForExit() async throws -> Outcome {
        await MoonbladeProcess.waitForExit(process, arguments: arguments)
        return try output.outcome(status: process.terminationStatus)
    }

    /// Ends standard input and waits for the process to exit.
    func finish() async throws -> Outcome {
        try input.fileHandleForWriting.close()
        await MoonbladeProcess.waitForExit(process, arguments: arguments)
        return try output.outcome(status: process.terminationStatus)
    }
}
