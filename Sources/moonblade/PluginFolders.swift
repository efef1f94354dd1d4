import Foundation
import MoonbladeHost

/// The plugin folders a command line names, by one rule for every command: a folder with a
/// `plugin.lua` is a plugin; a folder without one stands for the plugin folders in it (`moonblade
/// test Plugins`); a folder that does not exist, or holds no plugin either way, is an error.
enum PluginFolders {
    /// The plugin folders `arguments` stand for, in order (those inside a folder sorted by name).
    ///
    /// - Throws: after reporting every bad argument: ``ExitStatus/fileFailed`` when a folder does not
    ///   exist, else ``ExitStatus/pluginFailed`` when one holds no plugin.
    static func resolve(_ arguments: [String]) throws -> [String] {
        var folders: [String] = []
        var missing = false
        var empty = false
        for argument in arguments {
            if !FileReader.isFolder(argument) {
                Console.printError("error: no such folder: \(argument)")
                missing = true
            } else if isPlugin(argument) {
                folders.append(argument)
            } else {
                let inside = plugins(in: argument)
                if inside.isEmpty {
                    Console.printError(
                        "error: no plugin in \(argument) (expected \(argument)/plugin.lua, or folders that have one)")
                    empty = true
                }
                folders += inside
            }
        }
        if missing { throw ExitStatus.fileFailed.code }
        if empty { throw ExitStatus.pluginFailed.code }
        return folders
    }

    static func isPlugin(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: path(folder, "plugin.lua"))
    }

    /// The folders directly inside `container` that hold a `plugin.lua`, sorted by name.
    private static func plugins(in container: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: container)) ?? []
        return names.sorted().map { path(container, $0) }.filter(isPlugin)
    }

    /// `name` inside `folder`, written as the user wrote the folder (`Plugins/todo`, not an absolute path).
    private static func path(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
    }
}
