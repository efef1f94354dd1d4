import Foundation

/// Standard output for results, standard error for diagnostics; unbuffered, so lines appear in order
/// and at once even when both go to one pipe.
enum Console {
    static func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `text` without a newline: a prompt before what the user types.
    static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Reports a failure as one `error: ...` line on standard error.
    static func report(_ error: any Error) {
        printError("error: \(error)")
    }

    /// Lines of standard input as they arrive, without their newlines, until end of file.
    ///
    /// They are read on a thread of their own: a read blocked on a terminal must not hold one of the
    /// few threads of Swift's cooperative pool that the store's side effects need.
    static func inputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread {
                while let line = readLine(strippingNewline: true) {
                    continuation.yield(line)
                }
                continuation.finish()
            }.start()
        }
    }

    /// Whether standard input is a terminal (a person typing) rather than a pipe or a file.
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal: log lines then go without timestamps.
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
