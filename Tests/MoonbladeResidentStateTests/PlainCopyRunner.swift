import MoonbladeLua
import MoonbladeResidentState
import MoonbladeTestSupport
import Testing

/// Runs updaters on plain deep copies of the last state that decoded, in a harness's VM: what the
/// same updaters on drafts must agree with.
struct PlainCopyRunner {
    let vm: LuaVM

    /// Readies `harness`'s VM, `initial` (the harness's first state) being the first plain state.
    /// Both sides get `current_view()`: on drafts, a read-only view of the current version (what a
    /// side effect's `ctx.state()` is); on plain copies, a deep copy of the plain state, one per updater.
    init(_ harness: ResidentStateHarness, initial: Board) throws {
        vm = harness.vm
        vm.register("current_view") { [weak resident = harness.resident] stack in
            guard let resident else { return 0 }
            try resident.pushReadOnlyView(onto: stack)
            return 1
        }
        try replace(with: initial)
        try vm.run(luaDeepCopySource)
        try vm.run(
            """
            -- The plain side's globals: what its updaters keep (`kept = state.todos[1]`) stays apart
            -- from what the same code keeps on the draft side, in the same VM; they see the globals
            -- there are now (the libraries), never the draft side's.
            local library = {}
            for name, value in pairs(_G) do library[name] = value end
            local plain_globals = setmetatable({}, { __index = library })
            -- One view per updater, as a view is one per table: put at two places, it is one table
            -- there. (Its own copy: what an updater wrote through it must not reach the next one.)
            local view
            plain_globals.current_view = function()
              view = view or deep_copy(plain)
              return view
            end
            function run_plain(source)
              local updater = assert(load("local state = ...\\n" .. source, "=updater.lua", "t", plain_globals))
              local copy = deep_copy(plain)
              view = nil
              candidate = updater(copy) or copy
              return candidate
            end
            -- Forgets what the updaters kept in globals, on both sides.
            local harness_globals = {}
            for name in pairs(_G) do harness_globals[name] = true end
            function forget_updater_globals()
              for name in pairs(_G) do if not harness_globals[name] and name ~= "candidate" then _G[name] = nil end end
              for name in pairs(plain_globals) do if name ~= "current_view" then plain_globals[name] = nil end end
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

/// Runs each dispatch on a draft of the resident state and on a plain deep copy of the last state;
/// both must decode to the same `Board` after every dispatch (a failed one keeps both). The
/// dispatches at `failing` fail on the plain copy (a raise, a state that does not decode), and so must
/// they on the draft, leaving the state as it was; the others succeed. Each committed version must
/// also decode in full (no cache, no patches) to the same board.
///
/// With `acceptingReadOnlyParts` (for generated dispatches), a dispatch that fails on the draft by
/// using a revoked draft or writing a view where its plain copy is writable is not compared: the plain side starts again from the resident state, and both sides
/// forget what the updaters kept in globals (the draft side stopped before the rest of its updater).
func expectSameAsPlainCopies(
    _ dispatches: [String], failing: Set<Int> = [], acceptingReadOnlyParts: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let harness = try ResidentStateHarness(Board.sample)
    let vm = harness.vm
    let plain = try PlainCopyRunner(harness, initial: Board.sample)
    for (number, source) in dispatches.enumerated() {
        let before = try #require(harness.resident.current)
        let plainResult = try plain.run(source)
        let (residentResult, usedReadOnlyPart) = harness.dispatchBoard(source)
        if acceptingReadOnlyParts && usedReadOnlyPart && plainResult != nil {
            try plain.replace(with: harness.resident.decode(Board.self, of: #require(harness.resident.current)))
            try vm.run("forget_updater_globals()")
            continue
        }
        if !acceptingReadOnlyParts {
            #expect(
                (plainResult == nil) == failing.contains(number), "dispatch \(number) on a plain copy:\n\(source)", sourceLocation: sourceLocation)
        }
        #expect(residentResult == plainResult, "dispatch \(number):\n\(source)", sourceLocation: sourceLocation)
        if residentResult == nil {
            #expect(harness.resident.current === before, "dispatch \(number) failed but committed", sourceLocation: sourceLocation)
        }
        try vm.run("collectgarbage()")
        try harness.resident.pushReadOnlyView(of: #require(harness.resident.current), onto: vm.stack)
        let full = try LuaDecoder().decode(Board.self, from: vm.stack, at: -1)
        vm.stack.pop()
        #expect(full == (plainResult ?? full), "dispatch \(number) in full", sourceLocation: sourceLocation)
    }
}
