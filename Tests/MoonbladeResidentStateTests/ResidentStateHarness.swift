import MoonbladeLua
import MoonbladeResidentState
import Testing

/// A VM with a resident state, running Lua updaters on drafts the way the host does.
final class ResidentStateHarness {
    let vm: LuaVM
    let resident: LuaResidentState
    private var nextVersion: UInt64 = 1

    init<T: Encodable>(_ state: T, configuration: LuaVM.Configuration = .init()) throws {
        vm = try LuaVM(configuration: configuration)
        resident = try LuaResidentState(vm: vm)
        try resident.replace(with: state, version: 0)
        try vm.run(
            """
            function views_share(a, b, path)
              for name in string.gmatch(path, "[^.]+") do
                local key = tonumber(name) or name
                a, b = a[key], b[key]
              end
              return rawequal(a, b)
            end
            """)
    }

    /// Runs `source`, the body of an updater whose state is `state` (`local state = ...` is added),
    /// on a draft of the current version, and finishes the draft with what it returns.
    func draft(_ source: String) throws -> LuaPendingState {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        let updater = try vm.load("local state = ...\n" + source, chunkName: "updater.lua")
        return try resident.apply(updater, on: stack) { _ in 0 }
    }

    /// Drafts, decodes and commits: one successful dispatch.
    @discardableResult
    func update<T: Decodable>(_ type: T.Type, _ source: String) throws -> T {
        let pending = try draft(source)
        let value = try resident.decode(T.self, of: pending)
        commit(pending)
        return value
    }

    /// Drafts `source`, decodes the result as a `Board` and commits it if it decodes: one dispatch as
    /// the host makes it. Says whether it failed by using a revoked draft (one kept past its updater)
    /// or writing a view, where a plain copy goes on.
    func dispatchBoard(_ source: String) -> (board: Board?, usedReadOnlyPart: Bool) {
        do {
            let pending = try draft(source)
            guard let board = try? resident.decode(Board.self, of: pending) else { return (nil, false) }
            commit(pending)
            return (board, false)
        } catch let error as LuaError {
            let readOnly = error.message.contains(Self.revokedDraft) || error.message.contains("state is read-only here")
            return (nil, readOnly)
        } catch let error as LuaNewStateError where error.error.message.contains(Self.revokedInNewState) {
            return (nil, true)  // a revoked draft put into a table the updater made
        } catch {  // a new state that cannot be finished (a cycle): the plain copy fails too
            return (nil, false)
        }
    }

    /// What using a draft kept from an earlier updater raises.
    static let revokedDraft = "this state draft was revoked: its updater has returned"
    /// What finishing a new state that holds a draft kept from an earlier updater raises.
    static let revokedInNewState = "the new state holds a state draft that was revoked when its updater returned"

    @discardableResult
    func commit(_ pending: LuaPendingState) -> LuaStateVersion {
        defer { nextVersion += 1 }
        return resident.commit(pending, version: nextVersion)
    }

    /// Whether `path` (dot-separated fields and positions, e.g. `todos.2`) reaches the very same
    /// table in both versions; read through read-only views, which are one per table.
    func share(_ a: LuaStateVersion, _ b: LuaStateVersion, at path: String) throws -> Bool {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        stack.pushGlobals()
        stack.rawGet(table: -1, field: "views_share")
        try resident.pushReadOnlyView(of: a, onto: stack)
        try resident.pushReadOnlyView(of: b, onto: stack)
        stack.push(path)
        try stack.call(arguments: 3, results: 1)
        return stack.boolean(at: -1)
    }

    /// Runs `source` as a function of a read-only view of `version` (`local state = ...` is added)
    /// and returns its results.
    func read(_ version: LuaStateVersion, _ source: String) throws -> [LuaValue] {
        let stack = vm.stack
        let base = stack.top
        let function = try vm.load("local state = ...\n" + source, chunkName: "reader.lua")
        function.push(onto: stack)
        try resident.pushReadOnlyView(of: version, onto: stack)
        try stack.call(arguments: 1, results: nil)
        return try stack.popValues(stack.top - base)
    }
}

struct Chore: Codable, Equatable {
    var title: String
    var done: Bool
    var tags: [String] = []
}

struct Settings: Codable, Equatable {
    var theme: String
    var limits: [String: Int] = [:]
}

/// A typed state with nested structs, arrays and dictionaries.
struct Board: Codable, Equatable {
    var counter = 0
    var name: String?
    var todos: [Chore] = []
    var byOwner: [String: [Int]] = [:]
    var settings = Settings(theme: "light")
    /// Four levels of tables below the root (absent from `sample`), for updaters that write deep.
    var deep: [String: [String: [Int]]]?

    static let sample = Board(
        counter: 1, name: "home",
        todos: [
            Chore(title: "a", done: false, tags: ["x"]), Chore(title: "b", done: true),
            Chore(title: "c", done: false, tags: ["y", "z"]),
        ],
        byOwner: ["ann": [1, 2], "bob": [3]], settings: Settings(theme: "dark", limits: ["max": 3]))
}
