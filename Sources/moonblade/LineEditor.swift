import CLineEditor
import Foundation

/// The repl's line editor on a terminal: libedit's editing keys, Ctrl-R search, a history file,
/// Ctrl-C cancelling the line being typed, Tab completing the word before the cursor, and text
/// written meanwhile (``write(_:to:)``) shown above the line being typed.
final class LineEditor: @unchecked Sendable {
    // @unchecked Sendable: the C editor is read by one read at a time, since `lines()` asks for the
    // next line only once the repl has handled the previous one; `moonblade_line_editor_write` takes
    // the editor's own lock, for any thread.
    private let editor: OpaquePointer
    /// What Tab asks; kept here, since the C editor holds it unretained.
    private let completer: Completer

    /// An editor with `prompt`, its history in `historyFile`, and Tab offering what `complete` returns
    /// for the line before the cursor (the words that may replace its last word); nil when libedit
    /// cannot start.
    init?(prompt: String, historyFile: String?, complete: @escaping (String) -> [String]) {
        guard let editor = moonblade_line_editor_open("moonblade", prompt, historyFile) else { return nil }
        self.editor = editor
        completer = Completer(complete)
        // `Unmanaged`: the C editor takes its context as a `void *`, which holds no Swift reference.
        // Unretained: `completer` lives as long as this editor, which closes the C editor (and so stops
        // calling it) in deinit, before its stored properties go.
        moonblade_line_editor_set_completer(
            editor,
            { context, line in
                let completer = Unmanaged<Completer>.fromOpaque(context!).takeUnretainedValue()
                let words = completer.complete(String(cString: line!))
                return strdup(words.joined(separator: "\n"))
            }, Unmanaged.passUnretained(completer).toOpaque())
    }

    deinit {
        moonblade_line_editor_close(editor)
    }

    /// The completer the C editor calls back, as an object it can point to.
    private final class Completer {
        let complete: (String) -> [String]
        init(_ complete: @escaping (String) -> [String]) { self.complete = complete }
    }

    /// Writes `text` to `descriptor`, above the line being typed if one is; nil, or the `errno` of a
    /// failed write.
    func write(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        let failed = text.withUTF8 { moonblade_line_editor_write(editor, descriptor, $0.baseAddress, UInt($0.count)) } != 0
        return failed ? errno : nil
    }

    /// The lines typed, each read when the repl asks for it (so the prompt follows the last output);
    /// a line cancelled with Ctrl-C is dropped and a fresh prompt shown.
    func lines() -> AsyncStream<String> {
        AsyncStream(unfolding: { [self] in
            await withCheckedContinuation { continuation in
                // libedit blocks in read(2): on a thread of its own, not one of the shared pool.
                Thread.detachNewThread { continuation.resume(returning: self.readLine()) }
            }
        })
    }

    private func readLine() -> String? {
        while true {
            var cancelled: Int32 = 0
            guard let line = moonblade_line_editor_read(editor, &cancelled) else { return nil }
            if cancelled != 0 {
                print("")  // the cancelled line stays on screen; the next prompt goes below it
                continue
            }
            if !String(cString: line).allSatisfy(\.isWhitespace) {
                moonblade_line_editor_remember(editor, line)
            }
            return String(cString: line)
        }
    }

    /// `~/.moonblade_history`, where the repl keeps its history unless told otherwise.
    static var defaultHistoryFile: String {
        historyFile(environment: ProcessInfo.processInfo.environment)
    }

    /// `$XDG_STATE_HOME/moonblade/history` when that is set, else `$HOME/.moonblade_history`: the home
    /// the environment names (the user database's was used whatever `$HOME` said).
    static func historyFile(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("moonblade/history").path
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".moonblade_history").path
    }
}
