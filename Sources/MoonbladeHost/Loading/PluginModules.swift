import Foundation
import MoonbladeLua

/// `require` for plugins spread over several files: `require("helpers")` runs `helpers.lua` from the
/// plugin's own folder, `require("lib.text")` runs `lib/text.lua`.
///
/// Only Lua text from inside the folder loads: no C modules, no paths (a name is words joined by
/// dots), no symbolic link out of the folder. A module runs in the plugin's sandbox environment, once:
/// what it returns is kept for the plugin's version (a reload makes a new environment, so every
/// module runs again). Errors name the module's file and line (`todo/helpers.lua:3`).
enum PluginModules {
    static let chunkName = "moonblade/require.lua"

    /// Pushes the plugin's `require`, for the sandbox environment at `sandbox`.
    static func pushRequire(directory: String, folder: String, sandbox: Int32, on stack: LuaStack) throws(LuaError) {
        let sandbox = sandbox < 0 ? stack.top + sandbox + 1 : sandbox
        try stack.load(glue, chunkName: chunkName)
        stack.push(function: { stack in try loadModule(on: stack, directory: directory, folder: folder) })
        stack.pushCopy(of: sandbox)
        try stack.callAsHost(arguments: 2, results: 1)
    }

    /// `load_module(name, env)`: the module's chunk with `env` as its environment, or nil and why not.
    private static func loadModule(on stack: LuaStack, directory: String, folder: String) throws -> Int32 {
        guard let name = stack.string(at: 1) else {
            stack.pushNil()
            stack.push("require needs a module name, got \(stack.type(at: 1))")
            return 2
        }
        switch modulePath(name, in: directory) {
        case .failure(let problem):
            stack.pushNil()
            stack.push("require(\"\(name)\"): \(problem.message)")
            return 2
        case .success(let relative):
            let source: String
            let file = "\(folder)/\(relative)"
            do throws(FileReadError) {
                // Named inside the plugin's folder: the host's own paths are none of the plugin's business.
                source = try FileReader.text(at: "\(directory)/\(relative)", shownAs: file, limit: FileReader.sourceLimit)
            } catch {
                let place = error.line.map { "\(file):\($0): " } ?? ""
                stack.pushNil()
                stack.push("require(\"\(name)\"): \(place)\(error)")
                return 2
            }
            try stack.load(source, chunkName: "\(folder)/\(relative)")
            stack.pushCopy(of: 2)
            stack.setEnvironment(ofChunkAt: -2)
            return 1
        }
    }

    /// Why a module name does not lead to a file of the plugin.
    struct Refusal: Error {
        var message: String
    }

    /// The path of module `name` inside `directory` (`lib/text.lua`), or why there is none.
    static func modulePath(_ name: String, in directory: String) -> Result<String, Refusal> {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let isWord = { (part: Substring) in
            !part.isEmpty && !part.first!.isNumber && part.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        }
        guard parts.allSatisfy(isWord) else {
            return .failure(Refusal(message: "a module name is words joined by dots (lib.text for lib/text.lua), inside the plugin's folder"))
        }
        guard name != "plugin" else {
            return .failure(Refusal(message: "plugin.lua is the plugin itself, not a module"))
        }
        let relative = parts.joined(separator: "/") + ".lua"
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        let resolved = URL(fileURLWithPath: "\(directory)/\(relative)").resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .failure(Refusal(message: "no module \(relative) in the plugin's folder (modules load only from there)"))
        }
        guard resolved.hasPrefix(root + "/") else {
            return .failure(Refusal(message: "\(relative) leads out of the plugin's folder"))
        }
        return .success(relative)
    }

    /// Runs in the host's own environment: caches each module's value and refuses cycles; errors are
    /// raised at the plugin line that called `require`.
    private static let glue = String(luaResource: PackageResources.require_lua)
}
