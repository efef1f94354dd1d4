import Foundation
import Logging
import Moonblade
import MoonbladeHost
import Testing

/// `PluginHost.luaTypeDefinitions(dependencies:)`: LuaLS definitions that compile and name what the
/// host really offers.
@Suite struct LuaTypeDefinitionTests {
    struct Shelf: State, Codable {
        var items: [Item] = []
        var owner: String?
        var prices: [String: Double] = [:]
    }

    struct Item: Codable {
        var title: String
        var count: Int
        var done: Bool
    }

    struct Lookup: Codable, Sendable {
        var sku: String
    }

    static func dependencies() -> PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.expose("prices", "lookup") { (request: Lookup) in Item(title: request.sku, count: 1, done: false) }
        dependencies.expose("audit", "write") { (_: [String]) in }
        dependencies.expose("clock", "now") { 0.0 }
        return dependencies
    }

    @Test func aTypedStateAndTypedDependenciesGiveClasses() throws {
        let text = PluginHost<Shelf>.luaTypeDefinitions(dependencies: Self.dependencies())
        let expected = [
            "---@class moonblade.State", "---@field items moonblade.types.Item[]", "---@field owner string?",
            "---@field prices table<string, number>", "---@class moonblade.types.Item", "---@field title string",
            "---@field count integer", "---@field done boolean",
            "---@field lookup fun(arguments: moonblade.types.Lookup): moonblade.types.Item",
            "---@field write fun(arguments: string[])", "---@field now fun(): number", "---@class moonblade.types.Lookup",
        ]
        for line in expected {
            #expect(text.contains(line + "\n"), "missing: \(line)")
        }
        #expect(PluginHost<JSONValue>.luaTypeDefinitions(dependencies: Self.dependencies()).contains("---@alias moonblade.State table"))
    }

    @Test(.enabled(if: luacPath != nil, "luac5.4 is not installed (Scripts/bootstrap installs lua5.4)"))
    func theDefinitionsCompile() throws {
        #expect(try luacComplaint(about: PluginHost<Shelf>.luaTypeDefinitions(dependencies: Self.dependencies())) == nil)
        #expect(try luacComplaint(about: "---@meta\nfunction broken(") != nil)  // luac does complain
    }

    /// Every field the definitions give `ctx` is on a real one, and every dependency a real `ctx`
    /// reaches is in the definitions.
    @Test func theDefinitionsNameEveryContextFieldAndDependency() async throws {
        let scratch = ScratchPlugins()
        let folder = try scratch.write(
            "probe",
            """
            return {
              side_effects = {
                names = function(ctx, fields)
                  -- ctx reads through to a shared table pairs cannot walk: its fields are asked one by one
                  local names = {}
                  for _, key in ipairs(fields) do
                    if ctx[key] ~= nil then names[#names + 1] = "ctx." .. key end
                  end
                  for group, functions in pairs(ctx.deps) do
                    for name in pairs(functions) do names[#names + 1] = group .. "." .. name end
                  end
                  return names
                end,
              },
            }
            """)
        let dependencies = Self.dependencies()
        let host = try PluginHost<Shelf>(plugins: [folder], dependencies: dependencies)
        let names = try await host.dispatch(
            "probe.names", LuaTypeDefinitions.contextFields, returning: [String].self
        ).value
        #expect(names.count == LuaTypeDefinitions.contextFields.count + 3)
        let text = PluginHost<Shelf>.luaTypeDefinitions(dependencies: dependencies)
        for name in names {
            let parts = name.split(separator: ".")
            let owner = parts[0] == "ctx" ? "moonblade.Context" : "moonblade.deps.\(parts[0])"
            let section = text.components(separatedBy: "---@class \(owner)\n").dropFirst().first ?? ""
            let fields = section.components(separatedBy: "\n\n")[0]
            #expect(fields.contains("---@field \(parts[1]) "), "\(name) is not in \(owner)")
        }
    }

    /// `ctx` and the `moonblade` global are declared from the same tables the host installs: the names
    /// of a live VM's match the declared ones, so the two cannot drift.
    @Test func theDeclaredContextAndLibraryAreWhatTheHostInstalls() throws {
        let host = try PluginHost<JSONValue>(plugins: [])
        let installed = host.installedVocabulary
        #expect(installed.context == ["deps", "dispatch", "state"])
        #expect(installed.context == LuaTypeDefinitions.contextFields.sorted())
        #expect(installed.library == ["array", "null", "object"])
        #expect(installed.library == LuaTypeDefinitions.libraryFields.sorted())
    }

    /// What a plugin author reads in the editor is what the runtime takes: the log's argument table,
    /// dispatch's options, an optional `next` item, a read-only state, the library, the item names.
    @Test func theDefinitionsSayWhatTheRuntimeTakes() throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: ".moonblade"), logger: Logger(label: "types"))
        let text = PluginHost<JSONValue>.luaTypeDefinitions(dependencies: dependencies, itemNames: ["todo.add", "todo.load"])
        for line in [
            "---@field info fun(arguments: string|moonblade.types.LogEntry)",
            "---@class moonblade.types.LogEntry\n---@field message string",
            "---@field dispatch fun(name: moonblade.ItemName, payload?: any, options?: moonblade.DispatchOptions): any",
            "---@field retries? integer", "---@field delay? number",
            "---@field state fun(): moonblade.State The state now, as a read-only view (no copy)",
            "next: fun(item?: moonblade.Item)",
            "---@class moonblade.Library\n---@field array fun(): table", "---@field null lightuserdata",
            "---@type moonblade.Library\nmoonblade = nil",
            "---@alias moonblade.ItemName \"todo.add\"|\"todo.load\"",
        ] {
            #expect(text.contains(line), "missing: \(line)")
        }
        #expect(!text.contains("fun(arguments: string)"))
        #expect(!text.contains("A copy of the state"))
    }
}
