import Foundation
import Logging
import MoonbladeHost
import MoonbladeTesting
import Testing

/// The spec globals' editor types, and the definitions the shipped plugins' `.luarc.json` point at.
@Suite struct SpecTypeDefinitionTests {
    @Test func theSpecDefinitionsNameEveryGlobalAndAssertionOfALiveSpecVM() {
        let (globals, assertions) = LuaSpecRunner.vocabulary
        #expect(globals.contains("describe") && globals.contains("post") && globals.contains("finally"))
        #expect(assertions.contains("same") && assertions.contains("called_with"))
        let text = LuaSpecRunner.luaTypeDefinitions()
        for name in globals {
            #expect(text.contains("function \(name)(") || text.contains("\n\(name) = nil"), "\(name) is not defined")
        }
        for name in assertions {
            #expect(text.contains("---@field \(name) fun("), "assert.\(name) is not defined")
            #expect(text.contains("---@field is_not_\(name) fun("), "assert.is_not_\(name) is not defined")
        }
    }

    @Test(.enabled(if: luacPath != nil, "luac5.4 is not installed (Scripts/bootstrap installs lua5.4)"))
    func theSpecDefinitionsCompile() throws {
        #expect(try luacComplaint(about: LuaSpecRunner.luaTypeDefinitions()) == nil)
    }

    /// `Plugins/.types` is what `moonblade types` writes today, and every shipped plugin points at it.
    @Test func theShippedDefinitionsAreUpToDate() throws {
        let dependencies = PluginDependencies.standard(
            dataDirectory: URL(fileURLWithPath: ".moonblade"), logger: Logger(label: "moonblade.types"))
        let types = "\(shippedPluginsDirectory)/.types"
        let host = try String(contentsOfFile: "\(types)/moonblade.lua", encoding: .utf8)
        let spec = try String(contentsOfFile: "\(types)/moonblade_spec.lua", encoding: .utf8)
        let shipped = try FileManager.default.contentsOfDirectory(atPath: shippedPluginsDirectory).sorted()
            .map { "\(shippedPluginsDirectory)/\($0)" }.filter { FileManager.default.fileExists(atPath: "\($0)/plugin.lua") }
        let itemNames = try PluginHost<JSONValue>.check(plugins: shipped).plugins.flatMap { $0.updaters + $0.sideEffects }
        #expect(
            host == PluginHost<JSONValue>.luaTypeDefinitions(dependencies: dependencies, itemNames: itemNames),
            "run: moonblade types --out Plugins/.types Plugins")
        #expect(spec == LuaSpecRunner.luaTypeDefinitions(), "run: moonblade types --out Plugins/.types Plugins")
        let plugins = try FileManager.default.contentsOfDirectory(atPath: shippedPluginsDirectory)
            .filter { FileManager.default.fileExists(atPath: "\(shippedPluginsDirectory)/\($0)/plugin.lua") }
        #expect(!plugins.isEmpty)
        for plugin in plugins {
            let luarc = try String(contentsOfFile: "\(shippedPluginsDirectory)/\(plugin)/.luarc.json", encoding: .utf8)
            let json = try JSONSerialization.jsonObject(with: Data(luarc.utf8)) as? [String: Any]
            #expect(json?["workspace.library"] as? [String] == ["../.types"], "\(plugin)/.luarc.json")
        }
    }
}
