import Foundation

/// What Tab offers in the repl: a command or an item name for the first word, an item after
/// `dispatch`, `on` or `off` after `diff`, and a file path after `save`.
struct ReplCompletion {
    /// The command words, in the order `help` lists them.
    static let commands = ["dispatch", "state", "save", "reload", "history", "goto", "undo", "diff", "help", "quit"]

    /// The items loaded now (asked at each Tab: plugins load and reload while the repl runs).
    let itemNames: () -> [String]
    /// The folder relative paths start from.
    var directory = FileManager.default.currentDirectoryPath

    /// The words that may replace the last word of `line` (the text before the cursor), sorted: the
    /// word is what follows the last space.
    func candidates(for line: String) -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let word = words.last ?? ""
        let arguments = words.dropFirst().filter { !$0.isEmpty }.count - (word.isEmpty ? 0 : 1)
        let choices: [String]
        switch (words.count, words.first) {
        case (1, _): choices = Self.commands + itemNames()
        case (_, "dispatch") where arguments == 0: choices = itemNames()
        case (_, "diff") where arguments == 0: choices = ["on", "off"]
        case (_, "save") where arguments == 0: return paths(startingWith: word)
        default: choices = []
        }
        return choices.filter { $0.hasPrefix(word) }.sorted()
    }

    /// The files and folders whose path starts with `prefix` (a folder with a `/` after it); hidden
    /// ones only when the name typed starts with a dot.
    private func paths(startingWith prefix: String) -> [String] {
        let slash = prefix.lastIndex(of: "/")
        let folder = slash.map { String(prefix[...$0]) } ?? ""
        let name = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let base = folder.hasPrefix("/") ? URL(fileURLWithPath: folder) : URL(fileURLWithPath: directory).appendingPathComponent(folder)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        return entries.filter { $0.hasPrefix(name) && ($0.hasPrefix(".") == name.hasPrefix(".")) }.map { entry in
            let isFolder = (try? base.appendingPathComponent(entry).resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory
            return folder + entry + (isFolder == true ? "/" : "")
        }.sorted()
    }
}
