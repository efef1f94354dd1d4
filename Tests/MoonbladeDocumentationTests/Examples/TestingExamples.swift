// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
// The example of the MoonbladeTesting catalog's "Testing Plugins": a test that runs, on the shipped
// todo plugin (`swift test` runs in the package's root, where `Plugins/todo` is).

// snippet: testing-plugin-tester
import MoonbladeTesting
import Testing

@Test func loadReplacesTheTodos() async throws {
    var dependencies = PluginDependencies()
    let reads = dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
    dependencies.stub("storage", "write") { (_: WriteRequest) in }
    let tester = try PluginTester(plugins: ["Plugins/todo"], initialState: TodoState(), dependencies: dependencies)

    await tester.dispatch("todo.add", ["title": "eggs"]) { $0.todos = [Todo(title: "eggs")] }
    await tester.receive("todo.save")                         // the plugin's rule saves each change
    await tester.dispatch("todo.load")                        // a side effect: no change of its own
    await tester.receive("todo.replace", ["todos": [Todo(title: "milk")]]) {   // name, payload, change
        $0.todos = [Todo(title: "milk")]
    }
    await tester.receive("todo.save")
    await tester.finish()                                     // no side effect may still be running
    #expect(reads.calls == [ReadRequest(key: "todos")])
}
// end snippet
