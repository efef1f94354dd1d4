import MoonbladeTesting
import Testing

/// Every `it` in `Plugins/*/spec/*_spec.lua`, each as a test case of its own.
@Test(arguments: LuaSpecRunner.discover(pluginsIn: shippedPluginsDirectory))
func pluginSpec(_ specCase: LuaSpecCase) async {
    if case .failed(let failure) = await LuaSpecRunner().run(specCase) {
        Issue.record(Comment(rawValue: failure.description), sourceLocation: failure.sourceLocation)
    }
}
