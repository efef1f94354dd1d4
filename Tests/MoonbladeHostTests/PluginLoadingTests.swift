import Foundation
import MoonbladeHost
import MoonbladeLua
import Testing

@Suite("Loading plugins")
struct PluginLoadingTests {
    @Test func loadsShippedPluginsAndListsTheirItems() throws {
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), shippedPlugin("todo")])
        #expect(host.loadErrors.isEmpty)
        #expect(host.plugins.map(\.name) == ["counter", "todo"])
        #expect(host.plugins[0].updaters == ["counter.increment", "counter.reset"])
        #expect(host.plugins[1].sideEffects == ["todo.load", "todo.save"])
    }

    /// Each broken plugin is refused with its place, and a good one next to it still loads.
    @Test(arguments: [
        (
            source: "return {\n  updaters = {\n    add = function(state) state.x = end,\n  },\n}", kind: PluginError.Kind.load, line: 3,
            says: "unexpected symbol"
        ),
        (source: "local t = nil\nlocal x = t.field\nreturn {}", kind: .load, line: 2, says: "attempt to index a nil value"),
        (source: "local plugin = {}\nreturn 42", kind: .shape, line: 2, says: "must return a table, but returned number"),
        (
            source: "return {\n  updaters = {\n    add = 42,\n  },\n}", kind: .shape, line: 3,
            says: "updaters.add must be a function, found integer 42"
        ),
        (source: "return {\n  updater = {},\n}", kind: .shape, line: 2, says: "unknown field 'updater'"),
        (source: "return {\n  name = \"bad.name\",\n}", kind: .shape, line: 2, says: "without dots"),
        (source: "return {\n  side_effects = \"nope\",\n}", kind: .shape, line: 2, says: "side_effects must be a table of functions"),
        // A field on a line of its own or sharing a line, placed at its own line.
        (source: "-- a = 1\nreturn {\n  updaters = { a = 42 },\n}", kind: .shape, line: 3, says: "updaters.a must be a function"),
        (
            source: "return { name = \"x\",\n  side_effects = { ok = function() end, [\"b\"] = 1 } }", kind: .shape, line: 2,
            says: "side_effects.b must be a function"
        ),
        (
            source: "return {\n  updaters = {\n    a = function(state) local b = 1; state.b = 2 end,\n    b = true,\n  },\n}", kind: .shape, line: 4,
            says: "updaters.b must be a function"
        ),
        (source: "local version = 1\nreturn {\n  name = \"v\", version = \"two\",\n}", kind: .shape, line: 3, says: "version must be an integer"),
        (
            source: "return {\n  name = \"d\",\n  updaters = { a = function() end },\n  side_effects = {\n    a = function() end,\n  },\n}",
            kind: .shape, line: 5, says: "d.a is both an updater and a side effect"
        ),
        (source: "return {\n  name = \"m\",\n  migrate = 5,\n}", kind: .shape, line: 3, says: "migrate must be a function, found integer 5"),
        (source: "return {\n  interceptors = \"x\",\n}", kind: .shape, line: 2, says: "interceptors must be a table, found string"),
        (
            source: "return {\n  updaters = { [1] = function() end },\n}", kind: .shape, line: 2,
            says: "updaters may only have string keys, found a number key"
        ),
        (
            source: "return {\n  observers = {\n    { on_start = { \"a.b\" }, dispatch = { \"a.c\" } },\n  },\n}", kind: .shape, line: 3,
            says: "observers[1] has both an on_start list and a dispatch list; keep one"
        ),
        (
            source: "return {\n  observers = {\n    { on_start = 5 },\n  },\n}", kind: .shape, line: 3,
            says: "observers[1].on_start must be a list of items or true, found integer 5"
        ),
        (
            source: "return {\n  observers = {\n    { on_dispatch = \"a.b\", dispatch = \"a.c\" },\n  },\n}", kind: .shape, line: 3,
            says: "observers[1].dispatch must be a list of items, found string"
        ),
        (
            source: "return {\n  observers = {\n    { on_dispatch = \"a.b\", dispatch = { { \"a.c\", \"\\xff\" } } },\n  },\n}", kind: .shape,
            line: 3, says: "observers[1].dispatch[1] payload: "
        ),
    ])
    func refusesABrokenPluginWithItsPlace(source: String, kind: PluginError.Kind, line: Int, says: String) throws {
        let scratch = ScratchPlugins()
        let broken = try scratch.write("broken", source)
        let host = try PluginHost<AppState>(plugins: [broken, shippedPlugin("counter")])
        #expect(host.plugins.map(\.name) == ["counter"])
        let error = try #require(host.loadErrors.first)
        #expect(error.kind == kind)
        #expect(error.plugin == "broken")
        #expect(error.location == LuaLocation(source: "broken/plugin.lua", line: line))
        #expect(error.description.contains(says), "\(error)")
        #expect(error.description.contains("broken/plugin.lua:\(line)"), "\(error)")
    }

    @Test func checkLoadsWithoutAStore() throws {
        let scratch = ScratchPlugins()
        let broken = try scratch.write("broken", "return {\n  updater = {},\n}")
        let result = try PluginHost<AppState>.check(plugins: [shippedPlugin("counter"), broken, shippedPlugin("todo")])
        #expect(result.plugins.map(\.name) == ["counter", "todo"])
        #expect(result.errors.map(\.plugin) == ["broken"])
        #expect(result.errors.first?.description.contains("broken/plugin.lua:2") == true)
    }

    @Test func refusesASecondPluginWithTheSameName() throws {
        let scratch = ScratchPlugins()
        let twin = try scratch.write("twin", "return { name = \"counter\" }")
        let host = try PluginHost<AppState>(plugins: [shippedPlugin("counter"), twin])
        #expect(host.plugins.map(\.directory) == [shippedPlugin("counter")])
        #expect(host.loadErrors.map(\.kind) == [.duplicate])
    }

    @Test func aMissingPluginFileIsALoadError() throws {
        let host = try PluginHost<AppState>(plugins: ["/nonexistent/nowhere"])
        #expect(host.loadErrors.map(\.kind) == [.load])
        #expect(host.loadErrors.first?.description.contains("cannot read /nonexistent/nowhere/plugin.lua: no such file") == true)
    }

    /// A `plugin.lua` that is a named pipe nobody writes to, or a folder, is a load error naming it,
    /// and the host starts at once rather than waiting for a writer.
    @Test func aPluginFileThatIsAFIFOOrAFolderIsALoadErrorAtOnce() async throws {
        let scratch = ScratchPlugins()
        let piped = try scratch.write("piped", "")
        try FileManager.default.removeItem(atPath: piped + "/plugin.lua")
        let fifo = try UnwrittenFIFO(at: piped + "/plugin.lua")
        let folded = try scratch.write("folded", "")
        try FileManager.default.removeItem(atPath: folded + "/plugin.lua")
        try FileManager.default.createDirectory(atPath: folded + "/plugin.lua", withIntermediateDirectories: false)
        let healthy = try scratch.write("healthy", "return { name = \"healthy\" }")
        let (errors, loaded) = try await fifo.returnsWithoutWaiting {
            Result { () throws(PluginError) in
                let host = try PluginHost<AppState>(plugins: [piped, folded, healthy])
                return (host.loadErrors.map(\.description), host.plugins.map(\.name))
            }
        }.get()
        #expect(loaded == ["healthy"])
        #expect(
            errors == [
                "plugin piped: cannot read \(fifo.path): it is not a regular file (a FIFO)",
                "plugin folded: cannot read \(folded)/plugin.lua: it is a folder",
            ])
    }

    @Test func pluginGlobalsDoNotLeakIntoOtherPlugins() throws {
        let scratch = ScratchPlugins()
        let writer = try scratch.write("writer", "shared = 'from writer'\nreturn {}")
        let reader = try scratch.write(
            "reader",
            """
            return { updaters = { peek = function(state) state.counter = rawget(_ENV, "shared") == nil and 1 or 2 end } }
            """)
        let host = try PluginHost<AppState>(plugins: [writer, reader])
        #expect(host.loadErrors.isEmpty)
        try host.dispatch("reader.peek")
        #expect(host.state.counter == 1)
    }
}

/// A dependency error that plugin code catches and raises again on the same line names its place once.
@Suite struct RaisedAgainErrorTests {
    @Test(arguments: [
        "assert(pcall(ctx.deps.files.open, { name = 'x' }))",
        "local ok, err = pcall(ctx.deps.files.open, { name = 'x' }); if not ok then error(err) end",
        "local ok, err = pcall(ctx.deps.files.open, { name = 'x' }); assert(ok, err)",
    ])
    func theReRaisedErrorSaysItsPlaceOnce(_ line: String) async throws {
        struct Missing: Error, CustomStringConvertible { var description: String { "no such file" } }
        struct Request: Decodable { var name: String }
        var dependencies = PluginDependencies()
        dependencies.expose("files", "open") { (_: Request) async throws -> Int in throw Missing() }
        let scratch = ScratchPlugins()
        let folder = try scratch.write(
            "fs",
            """
            return {
              name = "fs",
              side_effects = {
                open = function(ctx)
                  \(line)
                end,
              },
            }
            """)
        let host = try PluginHost<AppState>(plugins: [folder], dependencies: dependencies)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("fs.open").value }
        #expect(error?.description == "fs.open: fs/plugin.lua:5: no such file")
    }
}
