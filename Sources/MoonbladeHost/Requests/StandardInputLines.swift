import Foundation

/// The lines of standard input, read the way `moonblade run --watch`, the REPL and `moonblade serve
/// --stdin` read dispatches.
package enum StandardInputLines {
    /// Lines of standard input as they arrive, without their newlines, until end of file.
    ///
    /// They are read on a thread of their own: a read blocked on a terminal must not hold one of the
    /// few threads of Swift's cooperative pool that the store's side effects need. A line that is not
    /// UTF-8 is passed to `report` and skipped (`readLine` would replace its bytes with U+FFFD, and a payload
    /// would change on its way in); a last line without a newline counts.
    package static func lines(reporting report: @escaping @Sendable (String) -> Void) -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread {
                // A stream of its own over descriptor 0: the C library's `stdin` is shared mutable state.
                guard let input = fdopen(STDIN_FILENO, "r") else { return continuation.finish() }
                var number = 0
                while let bytes = readLineBytes(from: input) {
                    number += 1
                    guard let line = String(validating: bytes, as: UTF8.self) else {
                        report("line \(number) of standard input is not valid UTF-8; skipped")
                        continue
                    }
                    continuation.yield(line)
                }
                continuation.finish()
            }.start()
        }
    }

    /// The next line of standard input without its `\n` or `\r\n`; nil at end of file.
    private static func readLineBytes(from input: UnsafeMutablePointer<FILE>) -> [UInt8]? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, input)
        guard count >= 0, let buffer else { return nil }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: buffer, count: count))
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

}
