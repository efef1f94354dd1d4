import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// A plugin written the way a hostile or careless author would, dispatched by name on the JSON
/// dynamic state the CLI uses: every failure names the plugin and its `file:line`, leaves the state
/// as it was (in Swift and in what the next updater sees in Lua), and the host goes on.
@Suite("The state lives in Lua: hostile plugins", .serialized)
struct ResidentStateHostileTests {
    let scratch = ScratchPlugins()

    /// Line numbers below are those of `plugin.lua` (the first line is 1).
    private func hostileHost(configuration: PluginHost<JSONValue>.Configuration = .init()) throws -> PluginHost<JSONValue> {
        let folder = try scratch.write(
            "hostile",
            """
            local kept_co, kept_view, kept_draft
            return {
              name = "hostile",
              updaters = {
                bump = function(state) state.n = state.n + 1 end,
                start_co = function(state)
                  kept_co = coroutine.wrap(function() local d = state.list; coroutine.yield(); d[1] = "late" end)
                  kept_co()
                end,
                resume_co = function(state) state.n = 50; kept_co() end,
                keep = function(state) kept_draft = state.obj end,
                put_back = function(state)
                  state.from_view = kept_view.obj; state.from_view.seen = true
                  if kept_draft then state.from_draft = kept_draft; state.from_draft.added = true end
                end,
                write_kept = function(state) state.n = 60; kept_draft.x = 1 end,
                cycle = function(state) state.n = 70; state.obj.me = state.obj end,
                many_then_error = function(state) for i = 1, 50 do state.list[i] = i end; error("after writes") end,
                caught = function(state)
                  state.n = 100
                  local ok = pcall(function() state.n = 200; state.obj.inner = true; error("x") end)
                  state.caught = not ok
                end,
                spin = function(state) state.n = -1; state.list[1] = "spent"; while true do end end,
                hoard = function(state)
                  state.n = -2
                  local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(64) .. i end
                end,
                store_function = function(state) state.obj.f = print end,
                store_thread = function(state) state.obj.t = coroutine.create(function() end) end,
                store_nan = function(state) state.obj.x = 0/0 end,
                store_inf = function(state) state.obj.x = -math.huge end,
                float_keys = function(state) state.list[1.0] = "one"; state.list[#state.list + 1.0] = "end" end,
                array_to_object = function(state) state.list.x = 1 end,
                object_to_array = function(state) state.obj = { 1, 2 } end,
                hole = function(state) state.list[1] = nil end,
                empty_all = function(state)
                  while #state.list > 0 do table.remove(state.list) end
                  for k in pairs(state.obj) do state.obj[k] = nil end
                end,
                fresh_empty = function(state)
                  state.a = moonblade.array(); state.o = moonblade.object(); state.e = {}
                  state.wrapped = { inner = state.obj, list = state.list }
                end,
                return_child = function(state) state.n = 9; return state.wrapped end,
                return_number = function(state) state.n = 9; return 5 end,
                return_fresh = function(state) state.n = 9; return { n = 1, fresh = true } end,
                two_keys = function(state) state.alias = state.obj; state.obj.shared = 1 end,
                yield = function(state) state.n = 11; coroutine.yield() end,
                draft_as_key = function(state) state.map = { [state.obj] = 1 } end,
              },
              side_effects = {
                keep_view = function(ctx) kept_view = ctx.state() end,
                write_view = function(ctx) kept_view.n = 5 end,
              },
            }
            """)
        let initial: JSONValue = ["n": 0, "list": ["a", "b"], "obj": ["k": "v"]]
        return try PluginHost<JSONValue>(plugins: [folder], initialState: initial, configuration: configuration)
    }

    /// Dispatches `name`, which must fail in the plugin's file (at `line`, if given: a failure found
    /// after the updater returned is placed at the updater's first line) with a message containing `message`,
    /// then checks that the state, in Swift and as the next updater sees it, is what it was.
    private func expectFailure(
        _ host: PluginHost<JSONValue>, _ name: String, line: Int?, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = host.state
        let error = try await #require(throws: PluginError.self, sourceLocation: sourceLocation) {
            try await host.dispatch(name).value
        }
        #expect(error.plugin == "hostile", sourceLocation: sourceLocation)
        #expect(error.description.contains(message), "\(error)", sourceLocation: sourceLocation)
        #expect(error.location?.source == "hostile/plugin.lua", "\(error)", sourceLocation: sourceLocation)
        if let line {
            #expect(error.location?.line == line, "\(error)", sourceLocation: sourceLocation)
        }
        #expect(host.state == before, sourceLocation: sourceLocation)
        // What Lua sees next is the old state too: bump adds one to the old `n`, nothing else changes.
        try await host.dispatch("hostile.bump").value
        guard case .object(var fields) = before, case .integer(let n) = fields["n"] else {
            Issue.record("no n in \(before)", sourceLocation: sourceLocation)
            return
        }
        fields["n"] = .integer(n + 1)
        #expect(host.state == .object(fields), sourceLocation: sourceLocation)
    }

    /// A view is one per table version, shared by every plugin: the sandbox's `rawset` refuses it (as it
    /// refuses the libraries' views), or one plugin's raw write would change what every other one reads.
    @Test func rawsetOnAViewIsRefusedAtItsLineAndNoPluginSeesAnything() async throws {
        let writer = try scratch.write(
            "writer",
            """
            return {
              name = "writer",
              side_effects = {
                root = function(ctx) rawset(ctx.state(), "n", 99) end,
                nested = function(ctx) rawset(ctx.state().items, 1, "evil") end,
              },
            }
            """)
        let reader = try scratch.write(
            "reader",
            """
            return {
              name = "reader",
              side_effects = { read = function(ctx) return { n = ctx.state().n, first = ctx.state().items[1] } end },
            }
            """)
        let host = try PluginHost<JSONValue>(plugins: [writer, reader], initialState: ["n": 1, "items": ["real"]])
        for (item, line) in [("writer.root", 4), ("writer.nested", 5)] {
            let error = try await #require(throws: PluginError.self) { try await host.dispatch(item).value }
            #expect(error.message.contains("rawset: the state (a view) is read-only"), "\(error)")
            #expect(error.location?.description == "writer/plugin.lua:\(line)")
        }
        #expect(try await host.dispatch("reader.read", returning: JSONValue.self).value == ["n": 1, "first": "real"])
    }

    @Test func draftsKeptInCoroutinesAndGlobalsAreRevokedAtThePluginsLine() async throws {
        let host = try hostileHost()
        try await host.dispatch("hostile.start_co").value
        // coroutine.wrap places a raise inside the coroutine at the line that resumed it.
        try await expectFailure(host, "hostile.resume_co", line: 10, "plugin.lua:7: this state draft was revoked")
        try await host.dispatch("hostile.keep").value
        try await expectFailure(host, "hostile.write_kept", line: 16, "this state draft was revoked")
        try await host.dispatch("hostile.keep_view").value
        try await expectFailure(host, "hostile.put_back", line: 14, "this state draft was revoked")
    }

    @Test func aSideEffectsViewPutBackIntoTheStateIsWrittenThroughIt() async throws {
        let host = try hostileHost()
        try await host.dispatch("hostile.keep_view").value
        try await host.dispatch("hostile.bump").value
        try await host.dispatch("hostile.put_back").value
        #expect(host.state["from_view"] == ["k": "v", "seen": true])
        #expect(host.state["obj"] == ["k": "v"])  // what it came from is unchanged
        // The view is still the state of its time, and read-only.
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("hostile.write_view").value }
        #expect(error.description.contains("state is read-only here (field \"n\")"), "\(error)")
        #expect(error.location?.description == "hostile/plugin.lua:54")
    }

    @Test func errorsHalfwayLeaveTheStateForTheNextUpdater() async throws {
        let host = try hostileHost()
        try await expectFailure(host, "hostile.many_then_error", line: 18, "after writes")
        try await expectFailure(host, "hostile.cycle", line: 17, "contains itself")
        try await expectFailure(host, "hostile.store_function", line: 29, "state.obj.f")
        try await expectFailure(host, "hostile.store_thread", line: 30, "state.obj.t")
        try await expectFailure(host, "hostile.store_nan", line: 31, "JSON has no NaN")
        try await expectFailure(host, "hostile.store_inf", line: 32, "state.obj.x")
        try await expectFailure(host, "hostile.array_to_object", line: 34, "state.list")
        try await expectFailure(host, "hostile.hole", line: 36, "state.list")
        try await expectFailure(host, "hostile.return_number", line: 46, "number")
        try await expectFailure(host, "hostile.yield", line: 49, "yield")
        try await expectFailure(host, "hostile.draft_as_key", line: 50, "state.map")
    }

    @Test func theBudgetAndTheMemoryLimitHalfwayLeaveTheStateForTheNextUpdater() async throws {
        let host = try hostileHost(configuration: .init(memoryLimit: 8 << 20, instructionBudget: 2_000_000))
        try await expectFailure(host, "hostile.spin", line: 24, "instruction")
        // Placed in the updater; which line depends on where the allocation failed.
        try await expectFailure(host, "hostile.hoard", line: nil, "memory limit")
    }

    @Test func anErrorCaughtInsideTheUpdaterKeepsItsWritesLikeAPlainTable() async throws {
        let host = try hostileHost()
        try await host.dispatch("hostile.caught").value
        #expect(host.state == ["n": 200, "list": ["a", "b"], "obj": ["k": "v", "inner": true], "caught": true])
    }

    @Test func oddKeysShapesAndReturnedTables() async throws {
        let host = try hostileHost()
        try await host.dispatch("hostile.float_keys").value
        #expect(host.state["list"] == ["one", "b", "end"])
        try await host.dispatch("hostile.two_keys").value
        #expect(host.state["alias"] == ["k": "v", "shared": 1])
        #expect(host.state["obj"] == ["k": "v", "shared": 1])
        try await host.dispatch("hostile.fresh_empty").value
        #expect(host.state["a"] == [])
        #expect(host.state["o"] == [:])
        #expect(host.state["e"] == [])
        #expect(host.state["wrapped"] == ["inner": ["k": "v", "shared": 1], "list": ["one", "b", "end"]])
        try await host.dispatch("hostile.empty_all").value
        #expect(host.state["list"] == [])
        #expect(host.state["obj"] == [:])  // an object emptied stays an object
        try await host.dispatch("hostile.object_to_array").value
        #expect(host.state["obj"] == [1, 2])
        try await host.dispatch("hostile.return_child").value
        // The returned child became the whole state (an object: the state keeps its kind at the root).
        #expect(host.state == ["inner": ["k": "v", "shared": 1], "list": ["one", "b", "end"]])
        try await host.dispatch("hostile.return_fresh").value
        #expect(host.state == ["n": 1, "fresh": true])
        try await host.dispatch("hostile.bump").value
        #expect(host.state == ["n": 2, "fresh": true])
    }

    private func ledgerPlugin(finishing offset: Int = 0) throws -> String {
        try scratch.write(
            "ledger",
            """
            return {
              name = "ledger",
              updaters = {
                mistype = function(state) state.counter = 5; state.items[1].done = "yes" end,
                peek = function(state)
                  state.seen = { tostring(state.counter), tostring(state.items[1].done), tostring(#state.items) }
                end,
                finish = function(state, p) state.items[p.at + \(offset)].done = true end,
                append = function(state, p) table.insert(state.items, { name = p.name, done = false }) end,
              },
            }
            """)
    }

    private func ledgerHost(_ folder: String) throws -> PluginHost<Ledger> {
        try PluginHost<Ledger>(plugins: [folder], initialState: Ledger(items: [.init(name: "a"), .init(name: "b")]))
    }

    /// A state the Lua code finished but Swift cannot decode (a `Codable` type mismatch) fails with the
    /// path, and the next updater sees in Lua what it saw before, not the undecodable draft.
    @Test func aStateThatFailsToDecodeIsNotWhatTheNextUpdaterSees() async throws {
        let host = try ledgerHost(try ledgerPlugin())
        try await host.dispatch("ledger.finish", ["at": 2]).value
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("ledger.mistype").value }
        #expect(error.description.contains("state.items[1].done"), "\(error)")
        #expect(error.location?.source == "ledger/plugin.lua")
        #expect(host.state == Ledger(items: [.init(name: "a"), .init(name: "b", done: true)]))
        try await host.dispatch("ledger.peek").value
        #expect(host.state.seen == ["0", "false", "2"])
    }

    /// Swift updaters, a reload and a failed decode between Lua updaters: each Lua updater starts from
    /// the state the store holds, and what it leaves decodes exactly.
    @Test func swiftUpdatersAndAReloadBetweenLuaUpdaters() async throws {
        let folder = try ledgerPlugin()
        let host = try ledgerHost(folder)
        try await host.dispatch("ledger.finish", ["at": 1]).value
        host.store.dispatch(ReplaceLedger(names: ["x", "y", "z"]))
        try await host.dispatch("ledger.peek").value
        #expect(host.state.seen == ["7", "false", "3"])
        _ = try await #require(throws: PluginError.self) { try await host.dispatch("ledger.mistype").value }
        host.store.dispatch(ReplaceLedger(names: ["x", "y", "z"], keepItems: true))
        try await host.dispatch("ledger.finish", ["at": 3]).value
        _ = try ledgerPlugin(finishing: -1)
        try await host.reload(plugin: "ledger")
        try await host.dispatch("ledger.finish", ["at": 2]).value  // now item 1
        try await host.dispatch("ledger.append", ["name": "w"]).value
        try await host.dispatch("ledger.peek").value
        #expect(
            host.state
                == Ledger(
                    counter: 14, items: [.init(name: "x", done: true), .init(name: "y"), .init(name: "z", done: true), .init(name: "w")],
                    seen: ["14", "true", "4"]))
    }

    /// Two hosts of the same plugin keep two resident states apart.
    @Test func twoHostsOfOnePluginKeepTheirStatesApart() async throws {
        let folder = try ledgerPlugin()
        let first = try ledgerHost(folder)
        let second = try ledgerHost(folder)
        for round in 1...3 {
            try await first.dispatch("ledger.append", ["name": "f\(round)"]).value
            try await second.dispatch("ledger.finish", ["at": round % 2 + 1]).value
            try await first.dispatch("ledger.finish", ["at": round + 2]).value
        }
        try await second.dispatch("ledger.peek").value
        #expect(first.state.items.map(\.name) == ["a", "b", "f1", "f2", "f3"])
        #expect(first.state.items.map(\.done) == [false, false, true, true, true])
        #expect(second.state.items == [.init(name: "a", done: true), .init(name: "b", done: true)])
        #expect(second.state.seen == ["0", "true", "2"])
    }
}

private struct LedgerEntry: Codable, Equatable, Sendable {
    var name: String
    var done = false
}

private struct Ledger: State, Codable, Equatable {
    var counter = 0
    var items: [LedgerEntry] = []
    var seen: [String] = []
}

/// A Swift updater between Lua ones: adds 7 to the counter and replaces the items (or, with
/// `keepItems`, leaves them).
private struct ReplaceLedger: StateUpdater {
    var names: [String]
    var keepItems = false

    func updateState(_ state: inout Ledger) {
        state.counter += 7
        if !keepItems { state.items = names.map { LedgerEntry(name: $0) } }
    }
}
