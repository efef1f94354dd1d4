import ArgumentParser
import Foundation
import MoonbladeHost

/// `moonblade new plugin NAME [--dir D]`: a plugin to start from.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a plugin to start from.",
        subcommands: [Plugin.self]
    )

    /// `moonblade new plugin NAME [--dir D]`.
    struct Plugin: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create D/NAME: a plugin with an updater, side effects and observer rules, its spec and editor types.",
            discussion: """
                Writes D/NAME/plugin.lua (a count saved through storage: the updaters add and loaded, \\
                the side effects load and save, an on_start rule and an on_dispatch rule), \\
                D/NAME/spec/NAME_spec.lua (cases that `moonblade test D/NAME` runs) and \\
                D/NAME/.luarc.json, and refreshes the editor types in D/.types as `moonblade types \\
                --out D/.types D` does. The plugin passes `moonblade check` and `moonblade test` as \\
                written. An existing D/NAME is left alone.

                \\(ExitStatus.help)
                """)

        @Argument(help: "The plugin's name: its folder's, and the first part of its items' (NAME.add).")
        var name: String

        @Option(help: ArgumentHelp("The folder the plugin folder goes in.", valueName: "dir"))
        var dir = "."

        func validate() throws {
            // A plugin name is the part of an item name before its dot.
            guard !name.contains("."), ItemName.isName("\(name).add"[...]) else {
                throw ValidationError(
                    "\(name) cannot name a plugin (letters, digits, - and _; not starting with a digit or -)")
            }
        }

        func run() throws {
            let folder = URL(fileURLWithPath: dir).appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: folder.path) else {
                Console.printError("error: \(folder.path) exists already; nothing was written")
                throw ExitStatus.fileFailed.code
            }
            let files = [
                ("plugin.lua", PackageResources.plugin_lua),
                ("spec/\(name)_spec.lua", PackageResources.plugin_spec_lua),
            ]
            do {
                for (path, template) in files {
                    let file = folder.appendingPathComponent(path)
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    let text = String(decoding: template, as: UTF8.self).replacingOccurrences(of: "{{name}}", with: name)
                    try AtomicFile.write(Data(text.utf8), to: file)
                }
            } catch {
                Console.printError("error: cannot write \(folder.path): \(error.localizedDescription)")
                throw ExitStatus.fileFailed.code
            }
            // The editor types of every plugin in the folder, this one's items included, and its .luarc.json.
            let types = URL(fileURLWithPath: dir).appendingPathComponent(".types").path
            try TypesCommand.parse(["--out", types, dir]).run()
            Console.print("created \(folder.path): try `moonblade test \(folder.path)`")
        }
    }
}
