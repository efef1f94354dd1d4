import Foundation
import MoonbladeHost

/// How the example app sets up its plugin host: the typed state, its Swift dependency, its plugins.
public enum NotesApp {
    /// The example's plugin folder, `Examples/Notes/Plugins/notes`.
    public static let pluginDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Plugins/notes").path

    /// The Swift functions the plugin may call: `ctx.deps.numbers.next()`.
    public static func dependencies(numbers: NoteNumbers) -> PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.expose("numbers", "next") { numbers.next() }
        return dependencies
    }

    /// A host on the notes plugin; a plugin that does not load is in `loadErrors`.
    public static func host(numbers: NoteNumbers = NoteNumbers()) throws -> PluginHost<NotesState> {
        try PluginHost<NotesState>(plugins: [pluginDirectory], dependencies: dependencies(numbers: numbers))
    }
}
