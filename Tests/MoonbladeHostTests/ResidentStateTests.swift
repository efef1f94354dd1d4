import Foundation
import Moonblade
import MoonbladeHost
import Testing

/// Counts how many times each kind of value is decoded, to see what a dispatch decodes again.
private let decodedItems = Locked(0)

/// An item of a big list, counting its decodes.
private struct CountedItem: Codable, Equatable, Sendable {
    var name: String
    var done = false

    init(name: String, done: Bool = false) {
        self.name = name
        self.done = done
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        done = try container.decode(Bool.self, forKey: .done)
        decodedItems.withLock { $0 += 1 }
    }
}

private struct ListState: State, Codable, Equatable {
    var counter = 0
    var items: [CountedItem] = []
    var log: [String] = []
}

@Suite("The state lives in Lua", .serialized)
struct ResidentStateTests {
    let scratch = ScratchPlugins()

    private func listHost(_ items: Int = 100) throws -> PluginHost<ListState> {
        let folder = try scratch.write(
            "list",
            """
            local kept
            return {
              name = "list",
              updaters = {
                bump = function(state) state.counter = state.counter + 1 end,
                finish = function(state, p) state.items[p.at].done = true end,
                append = function(state, p) table.insert(state.items, { name = p.name, done = false }) end,
                remove = function(state, p) table.remove(state.items, p.at) end,
                fail_halfway = function(state)
                  state.counter = 99
                  state.items[1].name = "changed"
                  table.remove(state.items, 2)
                  error("halfway")
                end,
                keep = function(state) kept = state end,
                write_kept = function() kept.counter = 1 end,
                raw = function(state)
                  local keys = 0
                  for _ in pairs(state) do keys = keys + 1 end
                  state.log = { tostring(rawget(state, "counter")), tostring(next(state)), tostring(keys), tostring(#state.items) }
                end,
                replace = function(state) return { counter = 7, items = { state.items[2] }, log = {} } end,
                misfinish = function(state, p) state.items[p.at].done = true; state.log = 5 end,
              },
            }
            """)
        let initial = ListState(items: (1...items).map { CountedItem(name: "item \($0)") })
        return try PluginHost<ListState>(plugins: [folder], initialState: initial)
    }

    private func decodes(during body: () async throws -> Void) async rethrows -> Int {
        let before = decodedItems.withLock { $0 }
        try await body()
        return decodedItems.withLock { $0 } - before
    }

    @Test func anUpdaterDecodesOnlyWhatItChanged() async throws {
        let host = try listHost()
        try await host.dispatch("list.bump").value  // the first one fills the decoding cache
        #expect(try await decodes { try await host.dispatch("list.bump").value } == 0)
        #expect(try await decodes { try await host.dispatch("list.finish", ["at": 50]).value } == 1)
        #expect(try await decodes { try await host.dispatch("list.append", ["name": "new"]).value } == 1)
        #expect(try await decodes { try await host.dispatch("list.remove", ["at": 1]).value } == 0)
        var expected = ListState(counter: 2, items: (1...100).map { CountedItem(name: "item \($0)") })
        expected.items[49].done = true
        expected.items.append(CountedItem(name: "new"))
        expected.items.removeFirst()
        #expect(host.state == expected)
    }

    @Test func aFailingUpdaterLeavesTheStateAndItsResidentCopyAsTheyWere() async throws {
        let host = try listHost(3)
        try await host.dispatch("list.bump").value
        let before = host.state
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("list.fail_halfway").value }
        #expect(error.message.contains("halfway"))
        #expect(error.location?.description == "list/plugin.lua:13")
        #expect(host.state == before)
        // The next updater starts from the untouched resident copy, not from the half-written draft.
        try await host.dispatch("list.bump").value
        #expect(host.state.counter == 2)
        #expect(host.state.items == before.items)
    }

    @Test func aDraftKeptPastItsUpdaterIsRevoked() async throws {
        let host = try listHost(2)
        try await host.dispatch("list.keep").value
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("list.write_kept").value }
        #expect(error.message.contains("this state draft was revoked: its updater has returned"))
        #expect(error.location?.description == "list/plugin.lua:16")
        #expect(host.state.counter == 0)
    }

    @Test func rawAccessSeesAnEmptyProxyWhilePairsAndLengthSeeTheState() async throws {
        let host = try listHost(4)
        try await host.dispatch("list.raw").value
        #expect(host.state.log == ["nil", "nil", "3", "4"])
    }

    @Test func anUpdaterMayReturnANewTableThatSharesTheOldOnesTables() async throws {
        let host = try listHost(100)
        try await host.dispatch("list.bump").value
        let decoded = try await decodes { try await host.dispatch("list.replace").value }
        #expect(host.state == ListState(counter: 7, items: [CountedItem(name: "item 2")]))
        #expect(decoded == 1)  // the new list's one item; none of the 99 it dropped
    }

    @Test func aSwiftUpdaterBetweenLuaUpdatersIsWhatTheNextOneSees() async throws {
        let host = try listHost(2)
        try await host.dispatch("list.bump").value
        host.store.dispatch(SetList(counter: 40, names: ["a", "b", "c"]))
        try await host.dispatch("list.bump").value
        try await host.dispatch("list.finish", ["at": 3]).value
        #expect(host.state == ListState(counter: 41, items: [.init(name: "a"), .init(name: "b"), .init(name: "c", done: true)]))
    }

    /// After a Swift updater, Lua works on the tables of the collections it left untouched (no item is
    /// decoded again) and sees the ones it changed in place as changed.
    @Test func aSwiftUpdaterKeepsTheTablesOfWhatItLeftUntouched() async throws {
        let host = try listHost(50)
        try await host.dispatch("list.bump").value
        host.store.dispatch(ChangeList(finish: nil))  // the counter only
        #expect(try await decodes { try await host.dispatch("list.finish", ["at": 2]).value } == 1)
        host.store.dispatch(ChangeList(finish: 3))  // an item, in place
        try await host.dispatch("list.bump").value
        #expect(host.state.counter == 22)
        #expect(host.state.items.indices.filter { host.state.items[$0].done } == [1, 3])
        try await host.dispatch("list.remove", ["at": 1]).value
        #expect(host.state.items.indices.filter { host.state.items[$0].done } == [0, 2])
        #expect(host.state.items.count == 49)
    }

    /// An updater whose result fails to decode (after the list it changed was decoded) leaves the state
    /// as it was, and so the tables a Swift updater after it reuses: the list is not pushed again as a
    /// new table, which the next updater would decode in full.
    @Test func aResultThatFailsToDecodeLeavesTheTablesASwiftUpdaterReuses() async throws {
        let host = try listHost(50)
        try await host.dispatch("list.bump").value
        let error = try await #require(throws: PluginError.self) { try await host.dispatch("list.misfinish", ["at": 2]).value }
        #expect(error.message.contains("state.log"), "\(error)")
        for _ in 0..<2 {  // and go on doing so (the list's cache entry was kept again)
            host.store.dispatch(ChangeList(finish: nil))  // the counter only
            #expect(try await decodes { try await host.dispatch("list.bump").value } == 0)
        }
        #expect(host.state.counter == 23)
        #expect(host.state.items.allSatisfy { !$0.done })
    }

    @Test func onStateChangeSeesTwoVersionsSharingWhatDidNotChange() async throws {
        let list = try scratch.write(
            "shared",
            """
            return {
              name = "shared",
              updaters = {
                bump = function(state) state.counter = state.counter + 1 end,
                finish = function(state) state.items[1].done = true end,
                note = function(state, p) state.log[#state.log + 1] = p.note end,
              },
              observers = {
                { on_state_change = function(old, new) return old.counter ~= new.counter end,
                  dispatch = { { "shared.note", function(old, new)
                    local same = old.items == new.items and old.items[2] == new.items[2]
                    return { note = "items shared: " .. tostring(same) }
                  end } } },
                { on_state_change = function(old, new) return old.items[1].done ~= new.items[1].done end,
                  dispatch = { { "shared.note", function(old, new)
                    local same = old.items[2] == new.items[2] and old.items[1] ~= new.items[1]
                    return { note = "item 2 shared, item 1 new: " .. tostring(same) }
                  end } } },
                { on_state_change = function(old) old.counter = 5 end, dispatch = { "shared.bump" } },
              },
            }
            """)
        let host = try PluginHost<ListState>(
            plugins: [list], initialState: ListState(items: [.init(name: "x"), .init(name: "y")]))
        try await host.dispatchAndSettle("shared.bump")
        try await host.dispatchAndSettle("shared.finish")
        #expect(host.state.log == ["items shared: true", "item 2 shared, item 1 new: true"])
        #expect(host.state.counter == 1)  // the rule that writes to `old` fails, read-only, and dispatches nothing
    }

    /// Finishing a draft copies the tables a plugin put in raw: their `__len` (plugin code) does not run.
    @Test func aTableWithLenMetamethodIsCopiedWithoutRunningIt() async throws {
        let folder = try scratch.write(
            "lens",
            """
            return {
              name = "lens",
              updaters = {
                put = function(state)
                  state.list = setmetatable({ 1, 2, 3 }, { __len = function() error("__len ran") end })
                end,
              },
            }
            """)
        let host = try PluginHost<JSONValue>(plugins: [folder], initialState: ["list": []])
        try await host.dispatch("lens.put").value
        #expect(host.state == ["list": [1, 2, 3]])
    }

    @Test func theDynamicStateKeepsItsShapeThroughDrafts() async throws {
        let folder = try scratch.write(
            "dyn",
            """
            return {
              name = "dyn",
              updaters = {
                edit = function(state)
                  state.user.name = "ada"
                  state.user.tags[#state.user.tags + 1] = "new"
                  table.remove(state.list, 1)
                  state.gone = nil
                  state.added = { nested = { 1, 2 } }
                end,
              },
            }
            """)
        let initial: JSONValue = [
            "user": ["name": "bob", "tags": ["a"]], "list": [1, 2, 3], "gone": true, "other": ["x": 1.5],
        ]
        let host = try PluginHost<JSONValue>(plugins: [folder], initialState: initial)
        try await host.dispatch("dyn.edit").value
        try await host.dispatch("dyn.edit").value
        #expect(
            host.state == [
                "user": ["name": "ada", "tags": ["a", "new", "new"]], "list": [3], "other": ["x": 1.5],
                "added": ["nested": [1, 2]],
            ])
    }
}

/// A Swift updater that replaces the list, between Lua updaters.
private struct SetList: StateUpdater {
    var counter: Int
    var names: [String]

    func updateState(_ state: inout ListState) {
        state.counter = counter
        state.items = names.map { CountedItem(name: $0) }
    }
}

/// Adds 10 to the counter and, with `finish`, marks that item (0-based) done.
private struct ChangeList: StateUpdater {
    var finish: Int?

    func updateState(_ state: inout ListState) {
        state.counter += 10
        if let finish { state.items[finish].done = true }
    }
}
