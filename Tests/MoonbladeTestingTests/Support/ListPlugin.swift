import Foundation

/// A plugin built for the tester's own tests, written to a temporary folder: each item exercises one
/// thing ``PluginTester`` checks, on a `TodoState`.
enum ListPlugin {
    /// A fresh copy of the plugin's folder, or of a plugin `named` with its own `source`.
    static func directory(named name: String = "list", source: String = source) throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("moonblade-tester-\(UUID().uuidString)").appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        return folder.path
    }

    /// The 1-based line of the source that contains `fragment`.
    static func line(of fragment: String) -> Int {
        source.components(separatedBy: "\n").firstIndex { $0.contains(fragment) }! + 1
    }

    /// What `list.add` raises for a payload without a title.
    static let missingTitle = "list.add needs a non-empty title"
    /// What the plugin's interceptor raises for `list.ping` with `{ refuse = true }`.
    static let refusedPing = "list.ping is refused"

    static let source = """
        return {
          name = "list",
          updaters = {
            add = function(state, payload)
              if type(payload) ~= "table" or type(payload.title) ~= "string" or payload.title == "" then
                error("\(missingTitle)")
              end
              state.todos[#state.todos + 1] = { title = payload.title, done = false }
            end,
            keep = function(state) end,
            replace = function(state, payload) state.todos = payload.todos end,
          },
          side_effects = {
            load = function(ctx)
              local saved = ctx.deps.storage.read { key = "todos" }
              ctx.dispatch("list.replace", { todos = saved })
            end,
            save = function(ctx)
              ctx.deps.storage.write { key = "todos", value = ctx.state().todos }
            end,
            ping = function(ctx) end,
          },
          interceptors = {
            function(item, next)
              if item.name == "list.ping" and item.payload and item.payload.refuse then error("\(refusedPing)") end
              return next(item)
            end,
          },
          observers = {
            { on_dispatch = "list.ping", dispatch = { "list.keep" } },
          },
        }
        """
}
