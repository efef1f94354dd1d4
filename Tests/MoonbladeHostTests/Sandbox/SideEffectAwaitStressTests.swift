import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// Many Lua side effect runs at once, each awaiting a random mix of Swift work under its plugin's time
/// limit, so that runs end just before, at and just after their deadline while the timer, the work's
/// threads and the runs race (``AwaitingSideEffect``, ``DeadlineTimer``): every run ends, soon, with
/// exactly the value its awaits add up to or with the limit error at its plugin's line, and the host
/// dispatches normally afterwards.
///
/// The programs come from a seed, printed with every failure: `MOONBLADE_STRESS_SEED=<seed>` replays
/// them (the interleaving, of course, is the machine's) and prints a summary of the outcomes.
@Suite("Side effect awaits under stress")
struct SideEffectAwaitStressTests {
    let scratch = ScratchPlugins()

    /// The plugins' time limits: from a few milliseconds (runs often end past them, while awaiting or
    /// in Lua) to one no run should reach (`calm`, the host-wide limit: its runs never stall, and
    /// must all return their value).
    static let limits: [(plugin: String, limit: Duration)] = [
        ("tight", .milliseconds(3)), ("short", .milliseconds(8)), ("medium", .milliseconds(20)),
        ("long", .milliseconds(50)), ("calm", .seconds(30)),
    ]

    /// How long after its deadline a run may end, on a loaded two-core machine: far more than any run
    /// needs alone, but in a full parallel run other tests hold the pool's threads for seconds (a calm
    /// run once took 6 s, another 20 s).
    static let margin = Duration.poolStarvationAllowance
    /// How long a stalling dependency holds its run unless the test releases it first: far past any
    /// limit here, so that a run that returns after its stall has lost its deadline.
    static let stallTime = Duration.seconds(10)

    /// How many waves of runs dispatched at once, and the most runs a wave has (the fewer, the less
    /// the runs wait for the VM, and the more their programs decide when they end).
    static let waves = 160.scaledDownForSanitizers
    static let largestWave = 64

    /// The plugin every run dispatches: one side effect following the program in its payload. Lua
    /// steps (`spin`, `state`, `dispatch`) run here; every other kind is a `ctx.deps.stress` function.
    static let plugin = """
        return {
          updaters = {
            bump = function(state) state.counter = state.counter + 1 end,
          },
          side_effects = {
            run = function(ctx, p)
              local sum = 0
              for _, step in ipairs(p.steps) do
                local kind, n = step.kind, step.n
                if kind == "spin" then
                  local x = 0
                  for _ = 1, step.us do x = x + 1 end
                  sum = sum + n + x - step.us
                elseif kind == "dispatch" then
                  ctx.dispatch(p.plugin .. ".bump")
                  sum = sum + n
                elseif kind == "state" then
                  if ctx.state().counter < 0 then error("a negative counter") end
                  sum = sum + n
                else
                  sum = sum + ctx.deps.stress[kind] { n = n, us = step.us }
                end
              end
              return sum
            end,
          },
        }
        """

    /// The lines of `plugin` that await Swift work, and those of the side effect's body.
    static let awaitingLines: Set<Int> = Set(lines(where: { $0.contains("ctx.dispatch(") || $0.contains("ctx.deps.") }))
    static let bodyLines = lines(where: { $0.contains("run = function") }).first!...lines(where: { $0.contains("return sum") }).first!

    static func lines(where matches: (Substring) -> Bool) -> [Int] {
        plugin.split(separator: "\n", omittingEmptySubsequences: false).enumerated().filter { matches($0.element) }.map { $0.offset + 1 }
    }

    /// What one step of a run does; `n` is what it adds to the run's sum.
    struct Step: Codable, Sendable {
        enum Kind: String, Codable, Sendable {
            /// Answers at once, without suspending.
            case now
            /// Suspends once with `Task.yield()`.
            case yield
            /// Resumed from a dispatch queue at once (racing the suspension) or after `us` microseconds.
            case queue, later
            /// `Task.sleep` for `us` microseconds; honours cancellation.
            case sleep
            /// Holds its thread for `us` microseconds without suspending.
            case block
            /// Suspends far past any limit: ignoring cancellation, honouring it, or honouring it with a
            /// cancellation handler that holds its thread for a millisecond.
            case stall, stallHonouringCancellation, stallSlowToCancel
            /// Lua steps: a loop of `us` turns, a read of the state, a dispatch of the plugin's updater.
            case spin, state, dispatch

            static let stalls: [Kind] = [.stall, .stallHonouringCancellation, .stallSlowToCancel]
        }

        var kind: Kind
        var n: Int
        var us: Int

        /// The kinds a random step takes, with their weights and the `us` they take.
        static let mix: [(kind: Kind, weight: Int, us: ClosedRange<Int>)] = [
            (.now, 30, 0...0), (.yield, 12, 0...0), (.queue, 10, 0...0), (.later, 10, 20...400), (.sleep, 8, 20...600),
            (.block, 3, 50...1000), (.spin, 8, 0...100_000), (.state, 4, 0...0), (.dispatch, 4, 0...0),
        ]

        /// A random step other than a stall.
        static func random(using generator: inout SplitMix) -> Step {
            var pick = Int.random(in: 0..<mix.reduce(0) { $0 + $1.weight }, using: &generator)
            let chosen = mix.first {
                pick -= $0.weight; return pick < 0
            }!
            return Step(kind: chosen.kind, n: Int.random(in: 0..<1000, using: &generator), us: Int.random(in: chosen.us, using: &generator))
        }
    }

    /// What a `ctx.deps.stress` function is called with.
    struct Arguments: Decodable, Sendable {
        var n: Int
        var us: Int
    }

    /// A run's payload: its plugin and its steps.
    struct Program: Encodable, Sendable, CustomStringConvertible {
        var plugin: String
        var steps: [Step]

        var limit: Duration { SideEffectAwaitStressTests.limits.first { $0.plugin == plugin }!.limit }
        var isCalm: Bool { plugin == "calm" }
        var stalls: Bool { steps.contains { Step.Kind.stalls.contains($0.kind) } }
        var expected: Int { steps.reduce(0) { $0 + $1.n } }
        var bumps: Int { steps.count(where: { $0.kind == .dispatch }) }
        var description: String { "\(plugin): " + steps.map { "\($0.kind) \($0.n) \($0.us)" }.joined(separator: ", ") }

        /// A random program: mostly up to a few dozen steps of every kind, sometimes a long run of awaits that
        /// answer at once (past the yield every 64 awaits), sometimes one stall (never for `calm`).
        static func random(using generator: inout SplitMix) -> Program {
            let (plugin, limit) = SideEffectAwaitStressTests.limits.randomElement(using: &generator)!
            let isLong = Int.random(in: 0..<10, using: &generator) == 0
            // About as many steps as the limit has milliseconds: runs end on both sides of it.
            let most = min(60, max(4, Int(limit / .milliseconds(1))))
            var steps = (0..<Int.random(in: isLong ? 60...200 : 1...most, using: &generator)).map { _ in
                isLong && Bool.random(using: &generator)
                    ? Step(kind: .now, n: Int.random(in: 0..<1000, using: &generator), us: 0)
                    : Step.random(using: &generator)
            }
            if plugin != "calm", Int.random(in: 0..<6, using: &generator) == 0 {
                let kind = Step.Kind.stalls.randomElement(using: &generator)!
                steps.insert(Step(kind: kind, n: 1, us: 0), at: Int.random(in: 0...steps.count, using: &generator))
            }
            return Program(plugin: plugin, steps: steps)
        }
    }

    /// Shared by the dependencies and the test: the stalls to release, the calls still running.
    final class Work: Sendable {
        let stalled = Locked<[Int: CheckedContinuation<Void, Never>]>([:])
        let lastStall = Locked(0)
        let inFlight = Locked(0)

        /// Runs `body` as one call in flight.
        func call<T>(_ body: () async throws -> T) async rethrows -> T {
            inFlight.withLock { $0 += 1 }
            defer { inFlight.withLock { $0 -= 1 } }
            return try await body()
        }

        /// Suspends, ignoring cancellation, until ``releaseStalls()`` or ``stallTime`` passes.
        func stall() async {
            let number = lastStall.withLock {
                $0 += 1; return $0
            }
            await withCheckedContinuation { continuation in
                stalled.withLock { $0[number] = continuation }
                DispatchQueue.global().asyncAfter(deadline: .now() + stallTime.timeInterval) { [self] in
                    stalled.withLock { $0.removeValue(forKey: number) }?.resume()
                }
            }
        }

        func releaseStalls() {
            let all = stalled.withLock { stalled in
                defer { stalled = [:] }; return stalled
            }
            for continuation in all.values { continuation.resume() }
        }
    }

    func host(_ work: Work) throws -> PluginHost<AppState> {
        var dependencies = PluginDependencies()
        func expose(_ kind: Step.Kind, _ body: @escaping @Sendable (Arguments) async throws -> Void) {
            dependencies.expose("stress", kind.rawValue) { (arguments: Arguments) async throws -> Int in
                try await work.call { try await body(arguments) }
                return arguments.n
            }
        }
        expose(.now) { _ in }
        expose(.yield) { _ in await Task.yield() }
        expose(.queue) { _ in await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } } }
        expose(.later) { step in
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(step.us)) { continuation.resume() }
            }
        }
        expose(.sleep) { step in try await Task.sleep(for: .microseconds(step.us)) }
        expose(.block) { step in usleep(UInt32(step.us)) }
        expose(.stall) { _ in await work.stall() }
        expose(.stallHonouringCancellation) { _ in try await Task.sleep(for: Self.stallTime) }
        expose(.stallSlowToCancel) { _ in
            try await withTaskCancellationHandler {
                try await Task.sleep(for: Self.stallTime)
            } onCancel: {
                usleep(1000)
            }
        }
        var configuration = PluginHost<AppState>.Configuration(
            instructionBudget: nil, callTimeLimit: nil, sideEffectTimeLimit: Self.limits.last!.limit)
        for (plugin, limit) in Self.limits.dropLast() {
            configuration.pluginLimits[plugin] = PluginLimits(sideEffectTimeLimit: limit)
        }
        let host = try PluginHost<AppState>(
            plugins: try Self.limits.map { try scratch.write($0.plugin, Self.plugin) }, dependencies: dependencies,
            configuration: configuration)
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    /// A run: its program, and when its handle is cancelled, if it is.
    struct Run: Sendable {
        var program: Program
        var cancelAfter: Duration?

        /// A random run, one in twelve cancelled within its limit (or 5 ms, for `calm`).
        static func random(using generator: inout SplitMix) -> Run {
            let program = Program.random(using: &generator)
            guard Int.random(in: 0..<12, using: &generator) == 0 else { return Run(program: program) }
            let within = program.isCalm ? 5_000 : Int(program.limit / .microseconds(1))
            return Run(program: program, cancelAfter: .microseconds(Int.random(in: 0...within, using: &generator)))
        }
    }

    /// How one run ended.
    struct Outcome: Sendable {
        var run: Run
        var result: Result<Int, any Error>
        var elapsed: Duration
    }

    /// The seed given in `MOONBLADE_STRESS_SEED`, or a fresh one.
    static let givenSeed = ProcessInfo.processInfo.environment["MOONBLADE_STRESS_SEED"].flatMap { UInt64($0) }

    @Test(.hangGuard) func concurrentRunsEndWithTheirValueOrTheLimitError() async throws {
        // Its runs keep the shared pool's threads busy for seconds, and its time bounds need them: it
        // takes its turn with the other tests that do (a hostile plugin holding a thread for seconds
        // made runs of this one end 3.7 s late in a full parallel run).
        try await PoolHoldingWork.shared.run { try await runWaves() }
    }

    /// Dispatches the waves of runs and checks how each run, and the host, ended.
    func runWaves() async throws {
        let seed = Self.givenSeed ?? UInt64.random(in: 0..<1_000_000_000)
        let replay = "seed \(seed): replay with MOONBLADE_STRESS_SEED=\(seed)"
        var generator = SplitMix(seed: seed)
        let work = Work()
        let host = try host(work)
        var tally: [String: (values: Int, awaiting: Int, inLua: Int)] = [:]
        var (runs, bumpsDone, bumpsTried, cancelledErrors, racing) = (0, 0, 0, 0, (values: 0, limits: 0))
        for _ in 0..<Self.waves {
            let wave = (0..<Int.random(in: 1...Self.largestWave, using: &generator)).map { _ in Run.random(using: &generator) }
            runs += wave.count
            // Unstructured tasks, so that a run that never ends is reported (with the seed) rather than
            // holding up the test until its time limit.
            let ended = Locked<[Int: Outcome]>([:])
            var tasks: [Task<Void, Never>] = []
            for (index, run) in wave.enumerated() {
                let start = ContinuousClock.now
                let handle = try host.dispatch("\(run.program.plugin).run", run.program, returning: Int.self)
                tasks.append(
                    Task {
                        let canceller = run.cancelAfter.map { delay in
                            Task {
                                try await Task.sleep(for: delay)
                                handle.cancel()
                            }
                        }
                        defer { canceller?.cancel() }
                        let result: Result<Int, any Error>
                        do { result = .success(try await handle.value) } catch { result = .failure(error) }
                        let outcome = Outcome(run: run, result: result, elapsed: ContinuousClock.now - start)
                        ended.withLock { $0[index] = outcome }
                    })
            }
            // Runs that end late are reported with their time below; these do not end even after a stall.
            guard await Self.allEnd(tasks, within: Self.stallTime + Self.margin) else {
                let unended = wave.indices.filter { index in ended.withLock { $0[index] == nil } }.map { wave[$0].program }
                Issue.record("runs that never ended (\(replay)): \(unended)")
                work.releaseStalls()
                return
            }
            for outcome in ended.withLock({ $0.values }) {
                let (program, isCancelled) = (outcome.run.program, outcome.run.cancelAfter != nil)
                bumpsTried += program.bumps
                let bound = (program.isCalm ? .zero : program.limit) + Self.margin
                #expect(outcome.elapsed < bound, "a run took \(outcome.elapsed) (\(replay)); \(program)")
                switch outcome.result {
                case .success(let value):
                    tally[program.plugin, default: (0, 0, 0)].values += 1
                    bumpsDone += program.bumps
                    if !program.isCalm && !program.stalls && !isCancelled { racing.values += 1 }
                    #expect(value == program.expected, "a wrong value (\(replay)); \(program)")
                    #expect(!program.stalls, "a run outlived its deadline stalled (\(replay)); \(program)")
                case .failure(let error) where isCancelled && (error as? PluginError)?.kind == .runtime:
                    // Cancelled: work that honours cancellation raised its error where the run awaited it.
                    cancelledErrors += 1
                    let error = error as! PluginError
                    #expect(error.message.contains("CancellationError"), "\(error) (\(replay)); \(program)")
                    #expect(Self.awaitingLines.contains(error.location?.line ?? 0), "\(error) (\(replay))")
                case .failure(let error):
                    let inLua = checkLimitError(error, of: program, replay)
                    if inLua { tally[program.plugin, default: (0, 0, 0)].inLua += 1 } else { tally[program.plugin, default: (0, 0, 0)].awaiting += 1 }
                    if !program.isCalm && !program.stalls && !isCancelled { racing.limits += 1 }
                    #expect(!program.isCalm, "a calm run failed (\(replay)): \(error); \(program)")
                }
            }
        }
        // Abandoned work ends on its own (the stalls once released), and the host is intact: the runs'
        // dispatches all applied (those of abandoned runs may have), the next dispatches work.
        work.releaseStalls()
        await waitUntil { work.inFlight.withLock { $0 } == 0 }
        await host.settle()
        let counter = host.state.counter
        #expect((bumpsDone...bumpsTried).contains(counter), "\(counter) bumps, not within \(bumpsDone)...\(bumpsTried) (\(replay))")
        try await host.dispatch("calm.bump").value
        #expect(host.state == AppState(counter: counter + 1), "\(replay)")
        let kinds: [Step.Kind] = [.now, .yield, .queue, .later, .sleep, .block, .spin, .state, .dispatch]
        let last = Program(plugin: "calm", steps: kinds.enumerated().map { Step(kind: $1, n: 1 << $0, us: 100) })
        #expect(try await host.dispatch("calm.run", last, returning: Int.self).value == last.expected, "\(replay)")
        // Both outcomes came up among the runs that race their deadline: the limits fit the programs.
        #expect(racing.values > 0 && racing.limits > 0, "\(racing) (\(replay))")
        if Self.givenSeed != nil {
            print(
                "seed \(seed): \(runs) runs; racing \(racing); \(cancelledErrors) cancelled; per plugin (values, limit awaiting, limit in Lua): \(tally.sorted { $0.key < $1.key })"
            )
        }
    }

    /// Waits until every task of `tasks` has ended, or `bound` has passed: returns whether they ended.
    static func allEnd(_ tasks: [Task<Void, Never>], within bound: Duration) async -> Bool {
        // Whichever comes first tells the waiter, or leaves the answer for it if it does not wait yet.
        let race = Locked<(waiter: CheckedContinuation<Bool, Never>?, ended: Bool?)>((nil, nil))
        let tell: @Sendable (Bool) -> Void = { ended in
            race.withLock { race -> CheckedContinuation<Bool, Never>? in
                guard race.ended == nil else { return nil }
                race.ended = ended
                defer { race.waiter = nil }
                return race.waiter
            }?.resume(returning: ended)
        }
        let timer = Task {
            try? await Task.sleep(for: bound)
            tell(false)
        }
        defer { timer.cancel() }
        Task {
            for task in tasks { await task.value }
            tell(true)
        }
        return await withCheckedContinuation { continuation in
            let ended = race.withLock { race -> Bool? in
                if race.ended == nil { race.waiter = continuation }
                return race.ended
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Checks that `error` is the limit error of `program`'s plugin, placed at one of its lines (one
    /// that awaits, when the run was awaiting); returns whether it was raised while Lua ran.
    func checkLimitError(_ error: any Error, of program: Program, _ replay: String) -> Bool {
        guard let error = error as? PluginError else {
            Issue.record("not a PluginError (\(replay)): \(error); \(program)")
            return false
        }
        #expect(error.kind == .limit, "\(error) (\(replay)); \(program)")
        #expect(error.plugin == program.plugin && error.item == "\(program.plugin).run", "\(error) (\(replay))")
        #expect(error.location?.source == "\(program.plugin)/plugin.lua", "\(error) (\(replay))")
        let line = error.location?.line ?? 0
        let exceeded = "time limit of \(String(format: "%g", program.limit / .seconds(1))) s exceeded"
        if error.message == "\(exceeded) while awaiting Swift work" {
            #expect(Self.awaitingLines.contains(line), "\(error) (\(replay))")
            return false
        }
        #expect(error.message == exceeded, "\(error) (\(replay)); \(program)")
        #expect(Self.bodyLines.contains(line), "\(error) (\(replay))")
        return true
    }
}

extension Duration {
    /// The duration in seconds, as `DispatchTime` arithmetic takes it.
    fileprivate var timeInterval: TimeInterval { self / .seconds(1) }
}
