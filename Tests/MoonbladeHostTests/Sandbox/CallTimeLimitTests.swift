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

    /// Dispatches `item`, expecting the call time limit to stop it in time at `place`; returns the error.
    func expectStopped(
        _ host: PluginHost<AppState>, dispatching item: String, at place: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> PluginError? {
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: PluginError.self, sourceLocation: sourceLocation) {
            try await host.dispatch(item).value
        }
        let described = String(describing: error)
        #expect(clock.now - start < HostileCorpus.timeBound, sourceLocation: sourceLocation)
        #expect(error?.kind == .limit, "\(described)", sourceLocation: sourceLocation)
        #expect(error?.plugin == "slow", "\(described)", sourceLocation: sourceLocation)
        #expect(error?.message.contains(Self.exceeded) == true, "\(described)", sourceLocation: sourceLocation)
        #expect(error?.location?.description == place, "\(described)", sourceLocation: sourceLocation)
        return error
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
        let error = await expectStopped(host, dispatching: "slow.run", at: "slow/plugin.lua:\(line)")
        #expect(error?.item == "slow.run")
        #expect(host.state == Self.initial)
        try await host.dispatch("counter.increment").value
        #expect(host.state.counter == 8)
    }

    @Test func anInterceptorIsStopped() async throws {
        let plugin = try listPlugin(
            scratch, "slow", "interceptors",
            """
                function(item, next)
                  if item.name == "counter.increment" then while true do end end
                  return next(item)
                end,
            """)
        let host = try host([plugin])
        _ = await expectStopped(host, dispatching: "counter.increment", at: "slow/plugin.lua:5")
        #expect(host.state == Self.initial)
        try await host.dispatch("counter.reset").value
        #expect(host.state.counter == 0)
    }

    @Test func anObserverRuleIsStoppedAndReported() async throws {
        let plugin = try listPlugin(
            scratch, "slow", "observers",
            """
                { on_state_change = function(old, new)
                    return ('a'):rep(4000):match('(.-)(.-)(.-)(.-)b')
                  end, dispatch = { "counter.reset" } },
            """)
        let host = try host([plugin])
        let clock = ContinuousClock()
        let start = clock.now
        try await host.dispatch("counter.increment").value
        await waitUntil { !log.lines.isEmpty }
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
        let plugin = try scratch.write(
            "slow",
            """
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
        _ = await expectStopped(host, dispatching: "slow.run", at: "slow/plugin.lua:5")
        #expect(host.state.counter == 8)  // what it dispatched before it was stopped stays
    }
}
