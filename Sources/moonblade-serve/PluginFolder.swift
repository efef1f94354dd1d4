import Foundation
import MoonbladeHost

/// The plugin folders a command line names, as every `moonblade` command reads them: a folder with a
/// `plugin.lua` is a plugin; a folder without one stands for the plugin folders in it.
enum PluginFolder {
    static func resolve(_ arguments: [String]) throws -> [String] {
        try arguments.flatMap { argument -> [String] in
            guard FileReader.isFolder(argument) else { throw ServeError(message: "no such folder: \(argument)") }
            if isPlugin(argument) { return [argument] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
            let inside = names.sorted().map { (argument as NSString).appendingPathComponent($0) }.filter(isPlugin)
            guard !inside.isEmpty else { throw ServeError(message: "no plugin in \(argument)") }
            return inside
        }
    }

    private static func isPlugin(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("plugin.lua"))
    }
}
