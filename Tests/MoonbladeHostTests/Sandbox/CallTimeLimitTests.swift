import Moonblade
import MoonbladeHost
import MoonbladeLua
import Testing

/// Updaters, interceptors and observer rules get a wall-clock limit per call, as side effects have,
/// which holds in Lua loops and in C library functions alike.
@Suite("Call time limit")
struct CallTimeLimitTests {
    static let initial = AppState(counter: 7, todos: [Todo(title: "keep")])
    static let exceeded = "time limit of 0.3 s exceeded"
    let scratch = ScratchPlugins()
    let log = RecordingLogHandler.Log()

    /// No instruction budget: only the call time limit can stop these.
    func host(_ plugins: [String], sideEffectTimeLimit: Duration? = nil) throws -> PluginHost<AppState> {
        let host = try PluginHost<AppState>(
            plugins: plugins + [shippedPlugin("counter")], initialState: Self.initial,
            configuration: .init(
                instructionBudget: nil, callTimeLimit: .milliseconds(300), sideEffectTimeLimit: sideEffectTimeLimit,
                logger: log.logger))
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    static let runaways = [
        (body: "while true do end", line: 5),
        (body: "local s = ('a'):rep(4000)\nreturn s:find(('a*'):rep(12) .. 'b')", line: 6),
        (body: "while true do pcall(string.gsub, ('a'):rep(4000), 'a-a-a-a-b', '') end", line: 5),
        (body: "local t = {}\ntable.move(t, 1, 1 << 52, 1, {})", line: 6),
    ]

    @Test(arguments: runaways)
    func anUpdaterIsStopped(body: String, line: Int) async throws {
        let plugin = try scratch.write(
            "slow", ["", "return {", "  updaters = {", "    run = function(state)", body, "    end,", "  },", "}"].joined(separator: "\n"))
        let host = try host([plugin])
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("slow.run").value }
        #expect(clock.now - start < HostileCorpus.timeBound)
        #expect(error?.kind == .limit)
        #expect(error?.item == "slow.run")
        #expect(error?.message.contains(Self.exceeded) == true, "\(String(describing: error))")
        #expect(error?.location == LuaLocation(source: "slow/plugin.lua", line: line), "\(String(describing: error))")
        #expect(host.state == Self.initial)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 8)
    }

    @Test func anInterceptorIsStopped() async throws {
        let plugin = try listPlugin(scratch, "slow", "interceptors", """
                function(item, next)
                  if item.name == "counter.increment" then while true do end end
                  return next(item)
                end,
            """)
        let host = try host([plugin])
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("counter.increment").value }
        #expect(clock.now - start < HostileCorpus.timeBound)
        #expect(error?.kind == .limit)
        #expect(error?.plugin == "slow")
        #expect(error?.message.contains(Self.exceeded) == true, "\(String(describing: error))")
        #expect(error?.location?.description == "slow/plugin.lua:5")
        #expect(host.state == Self.initial)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
    }

    @Test func anObserverRuleIsStoppedAndReported() async throws {
        let plugin = try listPlugin(scratch, "slow", "observers", """
                { on_state_change = function(old, new)
                    return ('a'):rep(4000):match('(.-)(.-)(.-)(.-)b')
                  end, dispatch = { "counter.reset" } },
            """)
        let host = try host([plugin])
        let clock = ContinuousClock()
        let start = clock.now
        try await host.dispatch("counter.increment").value
        try await waitUntil { !log.lines.isEmpty }
        #expect(clock.now - start < HostileCorpus.timeBound)
        #expect(host.state.counter == 8)  // the rule failed, so it dispatched nothing
        let report = log.lines.first ?? ""
        #expect(report.contains("slow.observers[1]"), "\(report)")
        #expect(report.contains("slow/plugin.lua:5: "), "\(report)")
        #expect(report.contains(Self.exceeded), "\(report)")
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 9)
    }

    @Test func aSideEffectWithoutATimeLimitOfItsOwnGetsOneCallTimeLimitPerStretch() async throws {
        let plugin = try scratch.write("slow", """
            return {
              side_effects = {
                run = function(ctx)
                  ctx.dispatch("counter.increment")
                  while true do end
                end,
              },
            }
            """)
        let host = try host([plugin], sideEffectTimeLimit: nil)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("slow.run").value }
        #expect(clock.now - start < HostileCorpus.timeBound)
        #expect(error?.kind == .limit)
        #expect(error?.message.contains(Self.exceeded) == true, "\(String(describing: error))")
        #expect(error?.location?.description == "slow/plugin.lua:5")
        #expect(host.state.counter == 8)  // what it dispatched before it was stopped stays
    }
}
