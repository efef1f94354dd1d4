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
