import ArgumentParser
import Foundation
import Logging
import MoonbladeHost
import MoonbladeTesting

/// `moonblade types`: writes LuaLS definitions for plugins and specs, and `.luarc.json` files that
/// point the editor at them.
struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "Write editor types (LuaLS ---@meta) for plugins and their specs.",
        discussion: """
            Writes <out>/moonblade.lua (the plugin table, ctx with its functions' parameters and \
            options, the moonblade library, the standard dependencies storage, clock and log with \
            their argument tables, the dynamic state, and the item names of the plugins given, which \
            ctx.dispatch and the rules take) and <out>/moonblade_spec.lua (the spec globals and \
            assertions). For each plugin folder given (a folder of plugin folders stands for them), \
            writes a .luarc.json that lists <out> as a library, so LuaLS completes and checks the \
            plugin; `---@type moonblade.Plugin` on the table plugin.lua returns types the plugin. An app that embeds Moonblade gets its own dependencies and state type from \
            PluginHost.luaTypeDefinitions(dependencies:).

            \(ExitStatus.help)
            """
    )

    @Option(help: ArgumentHelp("The folder the definitions go to.", valueName: "dir"))
    var out = "types"

    @Argument(help: "Plugin folders to give a .luarc.json; or folders of plugin folders.")
    var plugins: [String] = []

    func run() throws {
        let outURL = URL(fileURLWithPath: out)
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: ".moonblade"), logger: Logger(label: "moonblade.types"))
        let folders = try PluginFolders.resolve(plugins)
        // The items of the plugins that load: a broken one is `moonblade check`'s to report.
        let quiet = PluginHost<JSONValue>.Configuration(logger: Logger(label: "moonblade.types") { _ in SwiftLogNoOpLogHandler() })
        let loaded = (try? PluginHost<JSONValue>.check(plugins: folders, configuration: quiet).plugins) ?? []
        let itemNames = loaded.flatMap { $0.updaters + $0.sideEffects }
        let files = [
            ("moonblade.lua", PluginHost<JSONValue>.luaTypeDefinitions(dependencies: dependencies, itemNames: itemNames)),
            ("moonblade_spec.lua", LuaSpecRunner.luaTypeDefinitions()),
        ]
        try Self.writing(out) { try FileManager.default.createDirectory(at: outURL, withIntermediateDirectories: true) }
        for (name, text) in files {
            let file = outURL.appendingPathComponent(name)
            try Self.writing(file.path) { try AtomicFile.write(Data(text.utf8), to: file) }
        }
        for folder in folders.map({ URL(fileURLWithPath: $0).standardizedFileURL.path }) {
            let config = Self.luarc(library: Self.relativePath(from: folder, to: outURL.standardizedFileURL.path))
            let file = URL(fileURLWithPath: folder).appendingPathComponent(".luarc.json")
            try Self.writing(file.path) { try AtomicFile.write(Data(config.utf8), to: file) }
            Console.print("wrote \(folder)/.luarc.json")
        }
        Console.print("wrote \(out)/moonblade.lua and \(out)/moonblade_spec.lua")
    }

    /// Runs `body`, which writes `path`; its failure is `error: cannot write PATH: why`, exit code 4.
    /// (It was Foundation's whole error, `Error Domain=NSCocoaErrorDomain Code=516 …`, for an --out
    /// that is a file.)
    private static func writing(_ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            Console.printError("error: cannot write \(path): \(error.localizedDescription)")
            throw ExitStatus.fileFailed.code
        }
    }

    /// A `.luarc.json` for Lua 5.4 with `library` on the workspace library path, as a JSON string (a
    /// folder named with a quote or a backslash made the file no JSON).
    static func luarc(library: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let quoted = (try? encoder.encode(library)).flatMap { String(data: $0, encoding: .utf8) } ?? "\".\""
        return """
            {
              "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
              "runtime.version": "Lua 5.4",
              "workspace.library": [\(quoted)],
              "workspace.checkThirdParty": false
            }

            """
    }

    /// `target` relative to `folder` (both absolute and standardized): `../types`.
    static func relativePath(from folder: String, to target: String) -> String {
        let from = folder.split(separator: "/")
        let to = target.split(separator: "/")
        let common = zip(from, to).prefix { $0 == $1 }.count
        let path = Array(repeating: "..", count: from.count - common) + to.dropFirst(common).map(String.init)
        return path.isEmpty ? "." : path.joined(separator: "/")
    }
}
