import Moonblade
import MoonbladeHost
import MoonbladeLua
import Testing

@Suite("Hostile and buggy plugins")
struct HostileCorpusTests {
    static let initial = AppState(counter: 7, todos: [Todo(title: "keep")])

    /// `clock.stall` awaits a minute (longer than any side effect may); `clock.tick` returns at once.
    static func dependencies() -> PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.expose("clock", "stall") { () async throws -> Int in
            try await Task.sleep(for: .seconds(60))
            return 0
        }
        dependencies.expose("clock", "tick") { () async throws -> Int in 1 }
        return dependencies
    }

    /// One at a time: a runaway updater holds a thread of the cooperative pool until its limit stops
    /// it, and the cases run side by side queued their side effects' wake-ups behind each other's
    /// runaways (two cores, two threads): a side effect with a 0.5 s limit took over 20 s, and the time
    /// bound measured the queue instead of the limit. Not in ``PoolHoldingWork``'s turn: each case holds
    /// a thread for a limit's length at most, and all of them together would keep the turn from the
    /// tests that wait for it past their own time limits (minutes under the thread sanitizer).
    @Test(.serialized, arguments: HostileCorpus.takenInThisRun(HostileCorpus.cases))
    func aHostilePluginGetsAClearErrorAndTheHostCarriesOn(_ hostile: HostileCase) async throws {
        try await Self.expectStopped(hostile)
    }

    /// One at a time, and not beside other such work (``PoolHoldingWork``): each holds a thread of
    /// the cooperative pool while it works, and the other suites' side effects and reloads wait for
    /// one (two cores, two threads).
    @Test(.serialized, arguments: HostileCorpus.takenInThisRun(HostileCorpus.casesAtScale))
    func aHostilePluginDoingMegabytesOfWorkIsStoppedInTime(_ hostile: HostileCase) async throws {
        try await PoolHoldingWork.shared.run { try await Self.expectStopped(hostile) }
    }

    /// Loads `hostile` beside the counter plugin and checks its error, its time, the unchanged state
    /// and the dispatches that follow.
    static func expectStopped(_ hostile: HostileCase) async throws {
        let scratch = ScratchPlugins()
        let plugin = try scratch.write("hostile", hostile.source)
        let host = try PluginHost<AppState>(
            plugins: [plugin, shippedPlugin("counter")], initialState: Self.initial,
            dependencies: Self.dependencies(),
            configuration: .init(
                memoryLimit: HostileCorpus.memoryLimit, instructionBudget: HostileCorpus.instructionBudget,
                callTimeLimit: HostileCorpus.callTimeLimit, sideEffectTimeLimit: hostile.sideEffectTimeLimit))
        let recorder = ChangeRecorder()
        recorder.attach(to: host.store)

        let clock = ContinuousClock()
        let start = clock.now
        let error: PluginError?
        if hostile.failsToLoad {
            error = host.loadErrors.first
            #expect(host.plugins.map(\.name) == ["counter"])
        } else {
            #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
            error = await #expect(throws: PluginError.self) { try await host.dispatch("hostile.run").value }
            #expect(error?.item == "hostile.run")
        }
        let elapsed = clock.now - start
        #expect(elapsed < HostileCorpus.timeBound, "took \(elapsed)")
        let described = error.map(String.init(describing:)) ?? "no error"
        #expect(error?.kind == hostile.kind, "\(described)")
        #expect(error?.plugin == "hostile")
        #expect(error?.description.contains(hostile.says) == true, "\(described)")
        #expect(
            error?.location == LuaLocation(source: "hostile/plugin.lua", line: hostile.line), "\(described)")
        #expect(host.state == Self.initial)
        #expect(recorder.count == 0)

        try await host.dispatch("counter.increment").value
        if !hostile.failsToLoad {
            try await host.dispatch("hostile.bump").value
        }
        #expect(host.state.counter == Self.initial.counter + (hostile.failsToLoad ? 1 : 2))
    }

    @Test func theCorpusIsLargeAndItsNamesAreUnique() {
        let all = HostileCorpus.cases + HostileCorpus.casesAtScale
        #expect(HostileCorpus.cases.count >= 30)
        #expect(Set(all.map(\.name)).count == all.count)
    }
}
