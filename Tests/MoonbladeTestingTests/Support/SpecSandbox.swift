import Foundation
import MoonbladeTesting

/// A temporary plugin folder with one spec file, for tests of the spec runner itself.
struct SpecSandbox {
    let pluginDirectory: String
    let specFile: String

    /// Writes `plugin.lua` (the `shop` plugin below unless given) and `spec/sandbox_spec.lua`.
    init(spec: String, plugin: String = SpecSandbox.shopPlugin) throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("moonblade-spec-\(UUID().uuidString)").appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("spec"), withIntermediateDirectories: true)
        pluginDirectory = root.path
        specFile = root.appendingPathComponent("spec/sandbox_spec.lua").path
        try plugin.write(toFile: "\(pluginDirectory)/plugin.lua", atomically: true, encoding: .utf8)
        try spec.write(toFile: specFile, atomically: true, encoding: .utf8)
    }

    var cases: [LuaSpecCase] { LuaSpecRunner.discover(plugin: pluginDirectory) }

    /// Runs the only case with `runner` and returns its failure, nil when it passed.
    func failure(runner: LuaSpecRunner = LuaSpecRunner()) async throws -> LuaSpecFailure? {
        let cases = self.cases
        guard cases.count == 1 else { throw SandboxError.expectedOneCase(cases.map(\.name)) }
        if case .failed(let failure) = await runner.run(cases[0]) { return failure }
        return nil
    }

    enum SandboxError: Error {
        case expectedOneCase([String])
    }

    static let shopPlugin = """
        return {
          name = "shop",
          updaters = {
            add = function(state, p) state.items = state.items or {}; state.items[#state.items + 1] = p.item end,
            broken = function(state) error("the shelf collapsed") end,
          },
          side_effects = {
            price = function(ctx, p) return ctx.deps.prices.lookup { item = p.item } end,
          },
        }
        """
}
