import Moonblade
import MoonbladeHost
import Testing

/// Boundary rule 4 at set-up: the host's own Lua (the draft machinery, the side-effect and interceptor
/// glue) runs unlimited, so a host whose plugins get a budget or memory limit too tight for anything
/// still starts; the plugins' code is what meets the limits.
@Suite("The host's set-up is not held to the plugins' limits")
struct HostSetUpLimitTests {
    let scratch = ScratchPlugins()

    @Test(arguments: [
        PluginHost<AppState>.Configuration(instructionBudget: 1, hookInterval: 1),
        PluginHost<AppState>.Configuration(memoryLimit: 1),
    ])
    func aHostWithLimitsNoPluginFitsInStartsAndItsPluginsMeetThem(configuration: PluginHost<AppState>.Configuration) throws {
        let host = try PluginHost<AppState>(plugins: [], initialState: AppState(counter: 3), configuration: configuration)
        #expect(host.state.counter == 3)
        let plugin = try scratch.write("tiny", #"return { name = "tiny", updaters = { bump = function(s) s.counter = s.counter + 1 end } }"#)
        // Loading runs the plugin's code: a load error for the limit, not for the host's glue.
        let error = try #require(throws: PluginError.self) { try host.load(plugin: plugin) }
        #expect(error.kind == .load, "\(error)")
        #expect(error.description.contains("exceeded") && !error.description.contains("moonblade/"), "\(error)")
        #expect(host.state.counter == 3)
    }
}
