import Foundation
import Moonblade
import MoonbladeHost
import Synchronization

/// Whether standard output was found closed; set once, by the write that found it.
private let outputClosed = Atomic<Bool>(false)

/// The line editor reading the terminal, while the repl runs one: output goes above the line typed.
private final class ActiveEditor: @unchecked Sendable {
    // @unchecked Sendable: `editor` is touched only under `lock` (a pthread lock, which the thread
    // sanitizer follows).
    private let lock = Lock()
    private var editor: LineEditor?

    var current: LineEditor? {
        get { lock.withLock { editor } }
        set { lock.withLock { editor = newValue } }
    }
}

private let activeEditor = ActiveEditor()

/// Standard output for results, standard error for diagnostics; unbuffered, so lines appear in order
/// and at once even when both go to one pipe.
///
/// A closed output (the reader of a pipe gone: `moonblade run --watch … | head -1`) does not end the
/// process: SIGPIPE is ignored (see ``MoonbladeCommand/main()``), what cannot be written is dropped,
/// said once on standard error, and the run goes on to save its state.
enum Console {
    static func print(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` without a newline: a prompt before what the user types.
    static func prompt(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    static func printError(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Sends every line written to `editor` until ``endEditing()``: a message that comes while a line
    /// is typed (a reload, a rule's failure) goes above it, and the prompt and the line follow it.
    static func beginEditing(with editor: LineEditor) {
        activeEditor.current = editor
    }

    static func endEditing() {
        activeEditor.current = nil
    }

    /// Writes all of `text` to `descriptor`; a closed standard output is reported once and then skipped.
    private static func write(_ text: String, to descriptor: Int32) {
        if descriptor == STDOUT_FILENO, outputClosed.load(ordering: .relaxed) { return }
        let failure = activeEditor.current.map { $0.write(text, to: descriptor) } ?? writeAll(text, to: descriptor)
        if let failure, descriptor == STDOUT_FILENO, !outputClosed.exchange(true, ordering: .relaxed) {
            printError("error: standard output is closed (\(String(cString: strerror(failure)))); results are no longer printed")
        }
    }

    /// Writes all of `text` to `descriptor`, retrying short and interrupted writes: nil, or the `errno`
    /// of the write that failed.
    private static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            bytes = bytes.dropFirst(written)
        }
        return nil
    }

    /// Reports a failure as one `error: ...` line on standard error.
    static func report(_ error: any Error) {
        printError("error: \(error)")
    }

    /// Lines of standard input as they arrive (see ``StandardInputLines``), a line that is not UTF-8
    /// reported and skipped.
    static func inputLines() -> AsyncStream<String> {
        StandardInputLines.lines { printError("error: \($0)") }
    }

    /// Whether standard input is a terminal (a person typing) rather than a pipe or a file.
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal: log lines then go without timestamps.
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
