import MoonbladeHost
import MoonbladeTesting
import NotesApp
import Testing

/// The example's plugin under `PluginTester`, as an app would test its own plugins.
@Suite struct NotesPluginTests {
    @Test func addingANoteNumbersItThroughSwift() async throws {
        let tester = try PluginTester(
            plugins: [NotesApp.pluginDirectory], initialState: NotesState(),
            dependencies: NotesApp.dependencies(numbers: NoteNumbers(after: 41)))
        await tester.dispatch("notes.add", ["text": "buy milk"])
        await tester.receive("notes.insert", Note(id: 42, text: "buy milk")) {
            $0.notes = [Note(id: 42, text: "buy milk")]
        }
        await tester.finish()
    }

    @Test func aNoteWithoutTextIsRefused() async throws {
        let tester = try PluginTester(plugins: [NotesApp.pluginDirectory], initialState: NotesState())
        let error = await tester.dispatchExpectingError("notes.insert", Note(id: 1, text: ""))
        #expect("\(error.map { "\($0)" } ?? "")".contains("notes/plugin.lua:7: a note needs some text"))
        #expect(tester.state == NotesState())
    }

    @Test func theHostLoadsThePlugin() throws {
        #expect(try NotesApp.host().loadErrors.isEmpty)
    }
}
