import Moonblade
import MoonbladeHost
import MoonbladeTesting
import Testing

/// `receive(name, payload)`: the payload a side effect dispatched is checked as well as the name.
@Suite struct PluginTesterReceiveTests {
    private func loadingTester() async throws -> PluginTester<TodoState> {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
        let tester = try PluginTester(plugins: [try ListPlugin.directory()], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("list.load")
        return tester
    }

    @Test func theRightPayloadIsReceived() async throws {
        let tester = try await loadingTester()
        await tester.receive("list.replace", ["todos": [Todo(title: "milk")]]) { $0.todos = [Todo(title: "milk")] }
        await tester.finish()
    }

    /// An empty Lua table is both an empty list and an empty object: Lua cannot tell them apart.
    @Test func anEmptyTableMatchesAnEmptyListOrObject() async throws {
        for wanted: any Encodable & Sendable in [["todos": [Todo]()], ["todos": [String: String]()]] {
            var dependencies = PluginDependencies()
            dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo]() }
            let tester = try PluginTester(plugins: [try ListPlugin.directory()], initialState: TodoState(), dependencies: dependencies)
            await tester.dispatch("list.load")
            await tester.receive("list.replace", wanted)
            await tester.finish()
        }
    }

    /// A Swift item a side effect dispatched by its registered name is compared by its own fields.
    @Test func aSwiftItemsPayloadIsItsFields() async throws {
        struct Archive: StateUpdater, Codable, Sendable {
            var title: String
            func updateState(_ state: inout TodoState) {}
        }
        let folder = try ListPlugin.directory(
            named: "shelf",
            source: #"return { name = "shelf", side_effects = { file = function(ctx) ctx.dispatch("app.archive", { title = "milk" }) end } }"#)
        for (wanted, matches) in [(Archive(title: "milk"), true), (Archive(title: "eggs"), false)] {
            let tester = try PluginTester(plugins: [folder], initialState: TodoState())
            try tester.host.register(Archive.self, as: "app.archive")
            await tester.dispatch("shelf.file")
            await withKnownIssue(isIntermittent: matches) {
                await tester.receive("app.archive", wanted)
            } matching: { issue in
                message(of: issue).contains(#"received app.archive with payload {"title":"milk"}, expected {"title":"eggs"}"#)
            }
            await tester.finish()
        }
    }

    @Test func aDifferentPayloadFailsNamingBoth() async throws {
        let tester = try await loadingTester()
        await withKnownIssue {
            await tester.receive("list.replace", ["todos": [Todo(title: "eggs")]])
        } matching: { issue in
            let text = message(of: issue)
            return text.contains("received list.replace with payload {\"todos\":[{\"done\":false,\"title\":\"milk\"}]}")
                && text.contains("expected {\"todos\":[{\"done\":false,\"title\":\"eggs\"}]}")
        }
        tester.exhaustivity = .off
        await tester.finish()
    }
}
