import Foundation
import Moonblade
import Testing

@testable import MoonbladeHost

/// Sets the counter to `value` plus one: a second Swift type for a name `SetCounter` may hold.
struct SetCounterPlusOne: StateUpdater, Codable {
    var value: Int
    func updateState(_ state: inout AppState) { state.counter = value + 1 }
}

/// What `relay.send` dispatches: `name` with `payload`.
struct Relayed: Encodable, Sendable {
    var name: String
    var payload: [String: Int]
}

/// A plugin `relay` whose `add` adds `by` times `factor`, whose `send` dispatches `p.name` with
/// `p.payload`, whose interceptor turns `relay.redirect` into `app.set`, and whose rule dispatches
/// `relay.add { by = 100 }` after each `app.set`; `extra` goes among the updaters, from line 4.
func relayPlugin(factor: Int = 1, extra: String = "") -> String {
    """
    return {
      name = "relay",
      updaters = {
        \(extra)
        add = function(state, p) state.counter = state.counter + p.by * \(factor) end,
        redirect = function(state, p) error("the interceptor redirects this") end,
      },
      side_effects = { send = function(ctx, p) ctx.dispatch(p.name, p.payload) end },
      interceptors = {
        function(item, next)
          if item.name == "relay.redirect" then item.name = "app.set" end
          next(item)
        end,
      },
      observers = { { on_dispatch = "app.set", dispatch = { { "relay.add", { by = 100 } } } } },
    }
    """
}

/// A Lua item and a registered Swift item never share a name: whichever comes second is refused with
/// the name, the plugin and the Lua item's `file:line`, and the first keeps running.
@Suite("Lua and Swift items with the same name")
struct ItemNameCollisionTests {
    let scratch = ScratchPlugins()

    /// A host on the relay plugin with `SetCounter` registered as `app.set`, and its reload events.
    func host(factor: Int = 1) throws -> (PluginHost<AppState>, ReloadLog) {
        let host = try PluginHost<AppState>(plugins: [try scratch.write("relay", relayPlugin(factor: factor))])
        try host.register(SetCounter.self, as: "app.set")
        return (host, ReloadLog(host))
    }

    /// Checks that both kinds of item are reached by name every way there is: `relay.add` (Lua) adds
    /// `by` times `factor`, `app.set` (Swift) sets the counter, then the rule adds 100 times `factor`.
    func expectBothKindsDispatch(_ host: PluginHost<AppState>, factor: Int = 1) async throws {
        try await host.store.dispatch(SetCounter(value: 0)).value
        await host.settle()
        try await host.dispatch("relay.add", ["by": 1]).value  // Swift, by name: the Lua updater
        #expect(host.state.counter == 101 * factor)
        try await host.store.dispatch(SetCounter(value: 5)).value  // the Swift item, which the rule sees
        await host.settle()
        #expect(host.state.counter == 5 + 100 * factor)
        try await host.dispatch("relay.send", Relayed(name: "app.set", payload: ["value": 7])).value  // ctx.dispatch
        await host.settle()
        #expect(host.state.counter == 7 + 100 * factor)
        try await host.dispatch("relay.send", Relayed(name: "relay.add", payload: ["by": 2])).value
        #expect(host.state.counter == 7 + 102 * factor)
        try await host.dispatch("relay.redirect", ["value": 3]).value  // the interceptor's next
        await host.settle()
        #expect(host.state.counter == 3 + 100 * factor)
    }

    @Test func bothKindsDispatchByNameFromSwiftLuaInterceptorsAndRules() async throws {
        let (host, _) = try host()
        try await expectBothKindsDispatch(host)
    }

    @Test(arguments: [("relay.add", "an updater", 5), ("relay.send", "a side effect", 8)])
    func registeringUnderALuaItemsNameIsRefusedNamingThePluginAndLine(name: String, kind: String, line: Int)
        async throws
    {
        let (host, _) = try host()
        let error = try #require(throws: PluginError.self) { try host.register(SetCounterPlusOne.self, as: name) }
        #expect(error.kind == .duplicate)
        #expect(error.plugin == "relay")
        #expect(error.item == name)
        #expect(error.location?.description == "relay/plugin.lua:\(line)")
        #expect(
            error.description
                == "\(name): relay/plugin.lua:\(line): SetCounterPlusOne cannot be registered as \(name): "
                + "plugin relay has \(kind) of that name")
        #expect(host.state.counter == 0)
        try await expectBothKindsDispatch(host)
    }

    @Test func theSameTypeRegisteredAgainAsTheSameNameChangesNothing() async throws {
        let (host, _) = try host()
        try host.register(SetCounter.self, as: "app.set")
        try await expectBothKindsDispatch(host)
    }

    @Test func anotherTypeUnderARegisteredNameIsRefusedAndTheFirstKeepsIt() async throws {
        let (host, _) = try host()
        let error = try #require(throws: PluginError.self) { try host.register(SetCounterPlusOne.self, as: "app.set") }
        #expect(error.kind == .duplicate)
        #expect(error.item == "app.set")
        #expect(error.plugin == nil)
        #expect(error.location == nil)
        #expect(
            error.description
                == "app.set: SetCounterPlusOne cannot be registered as app.set: SetCounter is registered under that name")
        try await expectBothKindsDispatch(host)
    }

    @Test func aRegisteredTypeUnderASecondNameIsRefused() async throws {
        let (host, _) = try host()
        let error = try #require(throws: PluginError.self) { try host.register(SetCounter.self, as: "app.reset") }
        #expect(error.kind == .duplicate)
        #expect(
            error.description
                == "app.reset: SetCounter cannot be registered as app.reset: it is registered as app.set, "
                + "and an item has one name (the one Lua rules see it by)")
        let unknown = try await #require(throws: PluginError.self) {
            try await host.dispatch("relay.send", Relayed(name: "app.reset", payload: ["value": 1])).value
        }
        #expect(unknown.kind == .unknownItem)
        try await expectBothKindsDispatch(host)
    }

    @Test func aReloadDefiningARegisteredNameKeepsTheRunningVersionAndSaysWhere() async throws {
        let (host, events) = try host()
        try host.register(SetCounterPlusOne.self, as: "relay.set")
        _ = try scratch.write("relay", relayPlugin(factor: 2, extra: "set = function(state, p) state.counter = -1 end,"))
        let error = try await #require(throws: PluginError.self) { try await host.reload(plugin: "relay") }
        #expect(error.kind == .duplicate)
        #expect(error.plugin == "relay")
        #expect(error.item == "relay.set")
        #expect(
            error.description
                == "relay.set: relay/plugin.lua:4: plugin relay cannot define the updater set: "
                + "the Swift item SetCounterPlusOne is registered as relay.set")
        await waitUntil { events.all.count == 2 }
        #expect(events.all == ["started relay", "failed relay: \(error)"])
        #expect(host.state.counter == 0)
        // The old code runs (factor 1), and relay.set is still the Swift item.
        try await expectBothKindsDispatch(host)
        try await host.dispatch("relay.send", Relayed(name: "relay.set", payload: ["value": 40])).value
        #expect(host.state.counter == 41)

        // Without the clash, the same edit goes in.
        _ = try scratch.write("relay", relayPlugin(factor: 2))
        try await host.reload(plugin: "relay")
        try await expectBothKindsDispatch(host, factor: 2)
    }

    @Test func aSavedEditDefiningARegisteredNameFailsLikeOtherReloads() async throws {
        let (host, events) = try host()
        try host.register(SetCounterPlusOne.self, as: "relay.set")
        let watcher = host.watchPlugins(debounce: .milliseconds(20))
        _ = try scratch.write("relay", relayPlugin(factor: 2, extra: "set = function(state, p) state.counter = -1 end,"))
        await waitUntil { events.all.count == 2 }
        #expect(events.all.last?.hasPrefix("failed relay: relay.set: relay/plugin.lua:4: plugin relay cannot") == true)
        #expect(events.all.last?.hasSuffix("(watcher)") == true)
        try await expectBothKindsDispatch(host)
        watcher.stop()
    }

    @Test func aSwiftItemRegisteredWhileAReloadWaitsForItsSwapFailsTheSwap() async throws {
        let (host, events) = try host()
        // Hold the store on a thread of its own, so the swap waits in the queue behind it.
        let hold = HoldTheStore()
        Thread { host.store.dispatch(hold) }.start()
        hold.waitUntilHeld()
        _ = try scratch.write("relay", relayPlugin(factor: 2, extra: "set = function(state, p) state.counter = -1 end,"))
        let reload = host.startReload(plugin: "relay", cause: .call)
        try host.register(SetCounterPlusOne.self, as: "relay.set")
        hold.letGo()
        let error = try await #require(throws: PluginError.self) { try await host.finishReload(reload) }
        #expect(error.kind == .duplicate)
        #expect(error.location?.description == "relay/plugin.lua:4")
        await waitUntil { events.all.count == 2 }
        #expect(events.all == ["started relay", "failed relay: \(error)"])
        #expect(host.plugins.map(\.name) == ["relay"])
        try await expectBothKindsDispatch(host)
        try await host.dispatch("relay.send", Relayed(name: "relay.set", payload: ["value": 40])).value
        #expect(host.state.counter == 41)
    }

    @Test func aSwiftOnlyNamespaceThenAPluginOfThatNameLoadsUnlessItDefinesTheName() async throws {
        let (host, events) = try host()
        let app = try scratch.write(
            "app",
            """
            return {
              name = "app",
              side_effects = {
                set = function(ctx, p) end,
              },
            }
            """)
        let error = try #require(throws: PluginError.self) { try host.load(plugin: app) }
        #expect(error.kind == .duplicate)
        #expect(
            error.description
                == "app.set: app/plugin.lua:4: plugin app cannot define the side effect set: "
                + "the Swift item SetCounter is registered as app.set")
        await waitUntil { events.all.count == 2 }
        #expect(events.all == ["started app", "refused app: \(error)"])
        #expect(host.plugins.map(\.name) == ["relay"])
        try await expectBothKindsDispatch(host)

        _ = try scratch.write(
            "app",
            """
            return { name = "app", updaters = { double = function(state) state.counter = state.counter * 2 end } }
            """)
        try host.load(plugin: app)
        try await expectBothKindsDispatch(host)
        try await host.dispatch("app.double").value
        #expect(host.state.counter == 206)
    }
}

/// A Swift updater that holds the thread applying it until the test lets it go.
final class HoldTheStore: StateUpdater, Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    func updateState(_ state: inout AppState) {
        entered.signal()
        released.wait()
    }

    /// Returns once a thread is applying it (and so holds the store).
    func waitUntilHeld() { entered.wait() }

    /// Lets the thread applying it go on.
    func letGo() { released.signal() }
}
