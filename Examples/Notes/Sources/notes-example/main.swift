import MoonbladeHost
import NotesApp

// The embedding example of the README: a typed state, a Swift dependency, hot reload.
// `swift run notes-example` adds a note and prints the notes; with `--watch` it keeps running and
// reloads the plugin whenever Examples/Notes/Plugins/notes changes, printing each reload.

let host = try NotesApp.host()
for problem in host.loadErrors { print(problem) }  // notes/plugin.lua:12: … with its place

// Keep the watcher: watching stops when it is freed.
let watcher = host.watchPlugins()
let id = try await host.dispatch("notes.add", ["text": "buy milk"], returning: Int.self).value
print("added note \(id): \(host.state.notes)")

if CommandLine.arguments.contains("--watch") {
    print("watching \(NotesApp.pluginDirectory); Ctrl-C to stop")
    for await event in host.reloadEvents() {
        print(event)
    }
}
watcher.stop()
