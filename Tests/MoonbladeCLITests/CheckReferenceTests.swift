import Foundation
import Testing

/// `check` knows every item of a plugin: a rule naming one its own plugin lacks is an error at the
/// rule's line; one naming an item no plugin checked has is a warning.
@Suite("moonblade check: the names rules give")
struct CheckReferenceTests {
    let workspace = Workspace()

    @Test(arguments: [
        (#"{ on_dispatch = "ref.aa", dispatch = { "ref.a" } }"#, "ref.aa"),
        (#"{ on_dispatch = "ref.a", dispatch = { "ref.b" } }"#, "ref.b"),
        (#"{ on_start = { "ref.a", "ref.start" } }"#, "ref.start"),
        (#"{ on_state_change = function() return true end, dispatch = { { "ref.c", { n = 1 } } } }"#, "ref.c"),
    ])
    func aRuleNamingAMissingItemOfItsOwnPluginFailsAtItsLine(_ rule: String, _ missing: String) async throws {
        try workspace.plugin(
            "ref",
            """
            return {
              name = "ref",
              updaters = { a = function() end },
              observers = {
                { on_dispatch = "ref.a", dispatch = { "ref.a" } },
                \(rule),
              },
            }
            """)
        let outcome = try await workspace.run("check", "ref")
        #expect(outcome.status == 3)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr
                == "error: plugin ref: ref/plugin.lua:6: ref.observers[2] names \(missing), but ref has no such item (it has ref.a)\n")
        // run refuses it the same way.
        let run = try await workspace.run("run", "ref")
        #expect(run.status == 3)
        #expect(run.stderr.contains("ref/plugin.lua:6: ref.observers[2] names \(missing)"))
    }

    @Test func aRuleNamingAnUnknownItemOfAnotherPluginIsAWarning() async throws {
        try workspace.plugin(
            "ref",
            """
            return {
              name = "ref",
              updaters = { a = function() end },
              observers = {
                { on_dispatch = "other.gone", dispatch = { "ref.a" } },
                { on_dispatch = "ref.a", dispatch = { "other.kept", "app.swift_item" } },
              },
            }
            """)
        try workspace.plugin("other", #"return { name = "other", updaters = { kept = function() end } }"#)
        let alone = try await workspace.run("check", "ref")
        #expect(alone.status == 0)
        #expect(alone.stdout == "ok ref 1\n")
        #expect(
            alone.stderr == """
                warning: ref.observers[1]: ref/plugin.lua:5: names other.gone, which none of the plugins checked has (a plugin left out, or a Swift item?)
                warning: ref.observers[2]: ref/plugin.lua:6: names other.kept, which none of the plugins checked has (a plugin left out, or a Swift item?)
                warning: ref.observers[2]: ref/plugin.lua:6: names app.swift_item, which none of the plugins checked has (a plugin left out, or a Swift item?)\n
                """)
        let together = try await workspace.run("check", "ref", "other")
        #expect(together.status == 0)
        #expect(together.stdout == "ok ref 1\nok other 1\n")
        #expect(!together.stderr.contains("other.kept"))
        #expect(together.stderr.contains("names other.gone"))
    }
}
