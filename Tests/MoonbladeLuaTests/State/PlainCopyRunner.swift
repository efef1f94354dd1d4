import MoonbladeLua

/// Runs updaters on plain deep copies of the last state that decoded, in a harness's VM: what the
/// same updaters on drafts must agree with.
struct PlainCopyRunner {
    let vm: LuaVM

    /// Readies `harness`'s VM, `initial` (the harness's first state) being the first plain state.
    init(_ harness: ResidentStateHarness, initial: Board) throws {
        vm = harness.vm
        try replace(with: initial)
        try vm.run("""
            function deep_copy(value)
              if type(value) ~= "table" then return value end
              local copy = {}
              for k, v in pairs(value) do copy[k] = deep_copy(v) end
              return copy
            end
            -- The plain side's globals: what its updaters keep (`kept = state.todos[1]`) stays apart
            -- from what the same code keeps on the draft side, in the same VM; they see the globals
            -- there are now (the libraries), never the draft side's.
            local library = {}
            for name, value in pairs(_G) do library[name] = value end
            local plain_globals = setmetatable({}, { __index = library })
            function run_plain(source)
              local updater = assert(load("local state = ...\\n" .. source, "=updater.lua", "t", plain_globals))
              local copy = deep_copy(plain)
              candidate = updater(copy) or copy
              return candidate
            end
            """)
    }

    /// Makes `board` the plain state, as a Swift updater would.
    func replace(with board: Board) throws {
        vm.stack.pushGlobals()
        try LuaEncoder().push(board, onto: vm.stack)
        vm.stack.rawSet(table: -2, field: "plain")
        vm.stack.pop()
    }

    /// Runs `source` (an updater body, as ``ResidentStateHarness/draft(_:)`` takes it) on a deep copy
    /// of the plain state and decodes what it leaves in full; that becomes the plain state if it
    /// decodes. Nil when the updater raises or its result is not a `Board`.
    func run(_ source: String) throws -> Board? {
        vm.stack.pushGlobals()
        vm.stack.rawGet(table: -1, field: "run_plain")
        vm.stack.remove(at: -2)
        vm.stack.push(source)
        var result: Board?
        if (try? vm.stack.call(arguments: 1, results: 1)) != nil {
            result = try? LuaDecoder().decode(Board.self, from: vm.stack, at: -1)
            vm.stack.pop()
        }
        // A copy: what the updater kept must not reach the state the next one starts from.
        if result != nil { try vm.run("plain = deep_copy(candidate)") }
        return result
    }
}
