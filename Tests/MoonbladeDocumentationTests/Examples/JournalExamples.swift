// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
import MoonbladeTesting
import Testing

// The examples of the MoonbladeJournal catalog's articles: compiled here, not run (their plugin and
// journal paths are the reader's).

// snippet: journal-in-an-app
import MoonbladeJournal

func journaledHost() async throws {
    let journal = try Journal(path: "app.journal", configuration: .init(durability: .groupCommit))
    let host = try PluginHost<TodoState>(plugins: ["Plugins/todo"], journal: journal)   // starts from its state
    try await host.dispatch("todo.add", ["title": "milk"]).value
    for entry in try journal.entries(from: 1) { print(entry.sequence, entry.name, entry.patch.summary) }
    let earlier = try journal.state(as: TodoState.self, at: 40)                       // any recorded state
    print(earlier?.todos ?? [])
    try journal.close()                                                               // the shutdown snapshot
}
// end snippet

// snippet: journal-replay-and-time-travel
func travel(_ host: PluginHost<TodoState>, journal: Journal) async throws {
    try await TimeTravel(host: host, journal: journal).goto(40)                        // migrated if it must be
    let report = try JournalReplay.run(journal, on: try PluginHost<JSONValue>(plugins: ["Plugins/todo"]))
    if let divergence = report.divergence { print(divergence.lines.joined(separator: "\n")) }
    let earlier = try journal.state(as: TodoState.self, at: 40)
    let tester = try PluginTester(plugins: ["Plugins/todo"], initialState: earlier ?? TodoState())  // a test from there
    await tester.finish()
}
// end snippet
