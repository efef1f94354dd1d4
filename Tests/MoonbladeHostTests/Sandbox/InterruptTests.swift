import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// `PluginHost.interrupt()`: Ctrl-C's way to stop plugin code that runs away, from another thread,
/// where no limit is set to stop it.
@Suite("Interrupting plugin code")
struct InterruptTests {
    static let initial = AppState(counter: 7, todos: [Todo(title: "keep")])
    let scratch = ScratchPlugins()

    /// No instruction budget and no time limits: only the interrupt can stop these.
    func host(_ plugin: String) throws -> PluginHost<AppState> {
        let host = try PluginHost<AppState>(
            plugins: [plugin, shippedPlugin("counter")], initialState: Self.initial,
            configuration: .init(instructionBudget: nil, callTimeLimit: nil, sideEffectTimeLimit: nil))
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    @Test(arguments: [
        (kind: "updaters", body: "while true do end"),
        // `pcall` cannot swallow the interrupt, nor can a coroutine.
        (kind: "updaters", body: "while true do pcall(function() while true do end end) end"),
        (kind: "side_effects", body: "local n = 0 while true do n = n + 1 end"),
        (kind: "side_effects", body: "coroutine.wrap(function() while true do end end)()"),
    ])
    func aRunawayIsStoppedAtItsLineAndTheStateStays(kind: String, body: String) async throws {
        let plugin = try scratch.write(
            "spin", "return {\n  name = 'spin',\n  \(kind) = { run = function(state)\n    \(body)\n  end },\n}")
        let host = try host(plugin)
        // From a thread of its own, once the loop has most likely started; one that has not yet is
        // stopped at its first check, since the interrupt holds until `endInterrupt()`.
        onAThreadOfItsOwn(once: { true }, after: .milliseconds(100)) { host.interrupt() }
        let error = await #expect(throws: PluginError.self) { try await host.dispatchAndSettle("spin.run") }
        host.endInterrupt()
        #expect(error?.kind == .limit, "\(String(describing: error))")
        #expect(error?.item == "spin.run")
        #expect(error?.location?.description == "spin/plugin.lua:4", "\(String(describing: error))")
        #expect(error?.message.hasSuffix("interrupted") == true, "\(String(describing: error))")
        #expect(host.state == Self.initial)
        try await host.dispatchAndSettle("counter.increment")  // plugin code runs again
        #expect(host.state.counter == 8)
    }

    /// Nothing is stopped once the interrupt has ended: the flag does not linger into later calls.
    @Test func anEndedInterruptStopsNothing() async throws {
        let plugin = try scratch.write(
            "count", "return { name = 'count', updaters = { run = function(state)\n  for i = 1, 100000 do end\n  state.counter = 1\nend } }")
        let host = try host(plugin)
        host.interrupt()
        host.endInterrupt()
        try await host.dispatchAndSettle("count.run")
        #expect(host.state.counter == 1)
    }
}
