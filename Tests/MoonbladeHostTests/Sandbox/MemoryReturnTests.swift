import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// After a plugin call met the memory limit, what it built is garbage: the VM gives it back at once,
/// and the host dispatches on.
@Suite("The VM's memory after a memory bomb", .serialized)
struct MemoryReturnTests {
    static let limit = 32 << 20
    static let initial = AppState(counter: 7, todos: [Todo(title: "keep")])

    static let bombs: [(name: String, body: String)] = [
        ("strings in a table", "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end"),
        ("tables", "local t = {} for i = 1, 1e9 do t[i] = { i, i } end"),
        ("closures", "local t = {} for i = 1, 1e9 do local j = i t[i] = function() return j end end"),
        ("coroutines", "local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end"),
        ("string.rep kept from a pcall loop", "local t = {} while true do local ok, s = pcall(string.rep, 'x', 1e6) t[#t + 1] = s end"),
        ("doubling a string", "local s = 'x' while true do s = s .. s end"),
        (
            "a table bomb inside a coroutine inside pcall",
            "pcall(coroutine.wrap(function() local t = {} for i = 1, 1e9 do t[i] = { i } end end)) return 1"
        ),
    ]

    @Test(arguments: bombs)
    func theMemoryComesBackAndTheHostDispatches(_ name: String, _ body: String) async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write(
            "bomb",
            """
            return {
              updaters = {
                bomb = function(state)
                  \(body)
                end,
                bump = function(state) state.counter = state.counter + 1 end,
              },
            }
            """)
        let host = try PluginHost<AppState>(
            plugins: [plugin], initialState: Self.initial,
            // The memory limit is what is tested: a sanitized build on a busy machine takes seconds to
            // fill it, which must not meet the time limit first.
            configuration: .init(memoryLimit: Self.limit, callTimeLimit: Duration.seconds(5).allowingForSanitizers))
        try await host.dispatch("bomb.bump").value
        let before = host.memoryInUse
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("bomb.bomb").value }
        #expect(clock.now - start < Duration.seconds(20).allowingForSanitizers, "took \(clock.now - start)")
        #expect(error?.kind == .limit)
        #expect(error?.description.contains("memory limit of \(Self.limit) bytes exceeded") == true, "\(String(describing: error))")
        #expect(host.state.counter == 8)
        // Not what the bomb held (the limit, 32 MiB) until a later collection, but about what was there.
        #expect(host.memoryInUse < before + (2 << 20), "\(host.memoryInUse) bytes in use, \(before) before")
        try await host.dispatch("bomb.bump").value
        #expect(host.state.counter == 9)
    }
}
