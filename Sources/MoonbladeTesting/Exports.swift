// A test writes `import MoonbladeTesting` alone: the host (`PluginHost`, `PluginDependencies`,
// `JSONValue`) and the store come with it.
@_exported import MoonbladeHost
