import MoonbladeHost
import Testing

/// `setmetatable` on the state says what is refused and what to do instead; Lua's own message
/// ("cannot change a protected metatable") named neither.
@Suite struct StateMetatableTests {
    @Test(arguments: [
        ("draft", "a state draft cannot be given a metatable", "set the metatable on a plain table you build"),
        ("view", "the state is a read-only view and cannot be given a metatable", "copy what you need"),
    ])
    func setmetatableOnTheStateExplainsItself(item: String, refused: String, instead: String) async throws {
        let plugins = ScratchPlugins()
        let folder = try plugins.write(
            "meta",
            """
            return {
              name = "meta",
              updaters = { draft = function(state) state.n = 1
                setmetatable(state, {}) end },
              side_effects = { view = function(ctx)
                setmetatable(ctx.state(), {}) end },
            }
            """)
        let host = try PluginHost<JSONValue>(plugins: [folder], initialState: ["n": 0])
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("meta.\(item)").value }
        let line = item == "draft" ? 4 : 6
        #expect(error?.description.contains("meta/plugin.lua:\(line): setmetatable: \(refused)") == true, "\(String(describing: error))")
        #expect(error?.description.contains(instead) == true)
        #expect(host.state == ["n": 0])
    }

    /// A table the plugin builds keeps its metatable working until the updater returns.
    @Test func aPlainTableStillTakesAMetatable() async throws {
        let plugins = ScratchPlugins()
        let folder = try plugins.write(
            "meta",
            """
            return { name = "meta", updaters = { build = function(state)
              local t = setmetatable({}, { __index = function() return 7 end })
              state.n = t.anything
            end } }
            """)
        let host = try PluginHost<JSONValue>(plugins: [folder])
        try await host.dispatch("meta.build").value
        #expect(host.state == ["n": 7])
    }
}
