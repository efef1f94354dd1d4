import Moonblade
import MoonbladeHost
import Testing

/// `PluginHost.register(_:as:)` takes only names Lua can dispatch: `plugin.item` by the rule the loader
/// checks plugins against; any other name is refused with the name and what is wrong with it.
@Suite("Registering a Swift item under a name")
struct SwiftItemRegistrationTests {
    let scratch = ScratchPlugins()

    /// A host whose side effect `caller.send` dispatches the name in its payload with `{ value = 7 }`.
    func host() throws -> PluginHost<AppState> {
        let plugin = try scratch.write(
            "caller",
            """
            return {
              name = "caller",
              side_effects = { send = function(ctx, p) ctx.dispatch(p.name, { value = 7 }) end },
            }
            """)
        return try PluginHost<AppState>(plugins: [plugin])
    }

    @Test(arguments: ["app.set", "app.set_counter", "odd-names.a-1", "_x.Y9", "a.b"])
    func aPluginItemNameIsRegisteredAndLuaDispatchesIt(name: String) async throws {
        let host = try host()
        try host.register(SetCounter.self, as: name)
        try await host.dispatch("caller.send", ["name": name]).value
        #expect(host.state.counter == 7)
    }

    @Test(arguments: [
        ("a.b.c", #""a.b.c" is no item name: an item is named plugin.item, with one dot"#),
        ("", #""" is no item name: an item is named plugin.item, with one dot"#),
        ("x", #""x" is no item name: an item is named plugin.item, with one dot"#),
        ("add todo", #""add todo" is no item name: an item is named plugin.item, with one dot"#),
        ("app.add todo", #""app.add todo" is no item name: an item has \#(rule)"#),
        ("app.", #""app." is no item name: an item has \#(rule)"#),
        ("app.{x}", #""app.{x}" is no item name: an item has \#(rule)"#),
        (".set", #"".set" is no item name: a plugin has \#(rule), not starting with a digit or '-'"#),
        ("1app.set", #""1app.set" is no item name: a plugin has \#(rule), not starting with a digit or '-'"#),
        ("-app.set", #""-app.set" is no item name: a plugin has \#(rule), not starting with a digit or '-'"#),
        ("my app.set", #""my app.set" is no item name: a plugin has \#(rule), not starting with a digit or '-'"#),
    ])
    func aNameLuaCouldNotDispatchIsRefusedSayingWhy(name: String, message: String) async throws {
        let host = try host()
        let error = try #require(throws: PluginError.self) { try host.register(SetCounter.self, as: name) }
        #expect(error.kind == .invalidName)
        #expect(error.message == message)
        #expect(error.description == message)
        // Nothing was registered: dispatching the name from Lua finds no item, and the state is as it was.
        let dispatched = try await #require(throws: PluginError.self) {
            try await host.dispatch("caller.send", ["name": name]).value
        }
        #expect(dispatched.kind == .unknownItem, "\(dispatched)")
        #expect(host.state.counter == 0)
    }
}

/// The loader's words for what an item part must be.
private let rule = "a non-empty name without dots, spaces, quotes, brackets, braces, commas or colons"
