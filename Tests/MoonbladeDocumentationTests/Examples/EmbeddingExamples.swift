// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
import MoonbladeHost

// The examples of the MoonbladeHost articles: compiled here, not run (their plugin paths are the
// reader's).

// snippet: host-overview
import MoonbladeHost

func firstHost() async throws {
    let host = try PluginHost<JSONValue>(plugins: ["Plugins/todo"])
    try await host.dispatch("todo.add", ["title": "milk"]).value
    print(host.state)
}
// end snippet

// snippet: embedding-host
struct AppState: State, Codable, Equatable {
    var todos: [Todo] = []
    var counter = 0
}

func makeHost(storage: TodoStorage) throws -> PluginHost<AppState> {
    var dependencies = PluginDependencies()
    dependencies.expose("storage", "read") { (request: ReadRequest) async throws -> [Todo]? in
        try await storage.read(request.key)
    }
    let host = try PluginHost<AppState>(plugins: ["Plugins/todo"], dependencies: dependencies)
    for problem in host.loadErrors { print(problem) }   // todo/plugin.lua:3: … with its place
    return host
}
// end snippet

// snippet: embedding-dispatch
func addAndLoad(_ host: PluginHost<AppState>) async throws {
    try await host.dispatch("todo.add", ["title": "milk"]).value                 // any Encodable payload
    let count = try await host.dispatch("todo.load", returning: Int.self).value   // a side effect's value
    let result = try await host.dispatchAndSettle("todo.load")                  // a JSONValue?, once all it set off is done
    try await host.dispatch("todo.add", ["title": "eggs"], retries: 2, delay: .milliseconds(100)).value
    host.post("app.resumed", payload: ["reason": "wake"])                       // fires on_notification rules
    await host.settle()                                                         // idle, every failed rule reaction logged
    print(count, result ?? .null, host.state.todos)
}
// end snippet

// snippet: embedding-typed-wrappers
struct AddTodo: LuaStateUpdater {
    static let luaItem = "todo.add"
    var title: String
}

struct LoadTodos: LuaReturningSideEffect {
    static let luaItem = "todo.load"
    typealias ReturnValue = Int
}

func addTyped(_ host: PluginHost<AppState>) async throws -> Int {
    try await host.store.dispatch(AddTodo(title: "bread")).value
    return try await host.store.dispatch(LoadTodos()).value
}
// end snippet

// snippet: embedding-register
struct SetCounter: StateUpdater, Codable {
    var value: Int
    func updateState(_ state: inout AppState) { state.counter = value }
}

func registerItems(_ host: PluginHost<AppState>) throws {
    try host.register(SetCounter.self, as: "app.set_counter")   // Lua: ctx.dispatch("app.set_counter", { value = 5 })
    try host.dispatch("app.set_counter", ["value": 5])          // Swift, by the same name
}
// end snippet

// snippet: embedding-check-load
func checkThenLoad(_ host: PluginHost<AppState>) throws {
    let (loaded, refused, warnings) = try PluginHost<AppState>.check(plugins: ["Plugins/todo"])   // no store
    print(loaded.map(\.name), refused, warnings)
    for directory in host.unloadedDirectories {
        try host.load(plugin: directory)                        // once its files are fixed
    }
}
// end snippet

func limitsPerPlugin() -> PluginHost<AppState>.Configuration {
    // snippet: limits-per-plugin
    var configuration = PluginHost<AppState>.Configuration()
    configuration.pluginLimits["reports"] = PluginLimits(instructionBudget: 1_000_000_000, sideEffectTimeLimit: .seconds(120))
    // end snippet
    return configuration
}
