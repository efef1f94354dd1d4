import Foundation
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
        let folder = try scratch.write("probe", """
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
}
