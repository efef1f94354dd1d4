import Foundation
import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// A side effect's time limit covers its whole run, however many Swift awaits it makes (one deadline
/// per run), and cancelling a side effect reaches the Swift work it awaits.
@Suite("Side effect time limit")
struct SideEffectTimeLimitTests {
    let scratch = ScratchPlugins()
    /// A time limit no run here reaches, however slow the machine: the run goes through the deadline's
    /// machinery (a timer entry, the work in a task of its own) while only its work or a cancellation
    /// ends it. 30 s was reached once, by a full suite under ThreadSanitizer holding the pool.
    static let unreachedLimit = Duration.seconds(24 * 3600)
    /// Continuations of `slow.forever` calls, which ignore cancellation; resumed at the end of each test.
    let parked = Locked<[CheckedContinuation<Void, Never>]>([])
    /// How many `slow.nap` calls have started.
    let naps = Locked(0)
    /// What the cancellation handler of `slow.stubborn` waits for, and how many calls have started.
    let stubbornHandler = DispatchSemaphore(value: 0)
    let stubbornCalls = Locked(0)
    /// Whether the cancellation handler of `slow.stubborn` has stopped blocking.
    let stubbornHandlerDone = Locked(false)

    let plugin = """
        return {
          side_effects = {
            several = function(ctx)
              local sum = 0
              for i = 1, 3 do sum = sum + ctx.deps.fast.echo { n = i } end
              return sum + ctx.deps.slow.forever()
            end,
            spin = function(ctx)
              local n = ctx.deps.fast.echo { n = 1 }
              while true do n = n + 1 end
            end,
            wait = function(ctx)
              return ctx.deps.slow.forever()
            end,
            quick = function(ctx)
              return ctx.deps.fast.echo { n = 5 }
            end,
            mixed = function(ctx)
              local a = ctx.deps.fast.echo { n = 1 }
              local b = ctx.deps.slow.later { n = 20 }
              local c = ctx.deps.fast.echo { n = 300 }
              return a + b + c + ctx.deps.slow.later { n = 4000 }
            end,
            nap = function(ctx)
              local ok, message = pcall(ctx.deps.slow.nap)
              return ok and "slept" or "woken: " .. message
            end,
            blocked = function(ctx)
              local n = ctx.deps.slow.block()
              return n
            end,
            failing = function(ctx, p)
              local ok, message = pcall(ctx.deps[p.group].fail, { n = p.n })
              local value = ctx.deps.fast.echo { n = p.n }
              return (ok and "ok" or message) .. " then " .. value
            end,
            unguarded = function(ctx, p)
              ctx.deps.fast.echo { n = 1 }
              local n = ctx.deps[p.group].fail { n = p.n }
              return n
            end,
            brief = function(ctx, p)
              local n = ctx.deps.slow.sleep { n = p.n }
              return n
            end,
            stubborn = function(ctx)
              return ctx.deps.slow.stubborn()
            end,
          },
        }
        """

    /// The payload of `failing` and `unguarded`: which `fail` to call, and with what.
    struct Failing: Encodable, Sendable {
        var group: String
        var n: Int
    }

    struct DependencyFailure: Error, CustomStringConvertible {
        var n: Int
        var description: String { "failure \(n)" }
    }

    func host(_ configuration: PluginHost<AppState>.Configuration) throws -> PluginHost<AppState> {
        var dependencies = PluginDependencies()
        struct Echo: Decodable, Sendable { var n: Int }
        dependencies.expose("fast", "echo") { (request: Echo) async -> Int in request.n }
        dependencies.expose("slow", "forever") { [parked] () async -> Int in
            await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
            return 100
        }
        dependencies.expose("slow", "later") { (request: Echo) async throws -> Int in
            try await Task.sleep(for: .milliseconds(1))
            return request.n
        }
        dependencies.expose("slow", "nap") { [naps] () async throws -> Int in
            naps.withLock { $0 += 1 }
            // Only a cancellation ends it: no sleep that a slow enough test could outlast.
            let (wakeUps, keptOpen) = AsyncStream.makeStream(of: Never.self)
            for await _ in wakeUps {}
            withExtendedLifetime(keptOpen) {}
            try Task.checkCancellation()
            return 1
        }
        dependencies.expose("slow", "block") { () async -> Int in
            usleep(400_000)  // holds its thread: the work never suspends
            return 1
        }
        dependencies.expose("fast", "fail") { (request: Echo) async throws -> Int in
            throw DependencyFailure(n: request.n)
        }
        dependencies.expose("slow", "fail") { (request: Echo) async throws -> Int in
            try await Task.sleep(for: .milliseconds(1))
            throw DependencyFailure(n: request.n)
        }
        dependencies.expose("slow", "sleep") { (request: Echo) async throws -> Int in
            try await Task.sleep(for: .microseconds(request.n))
            return request.n
        }
        dependencies.expose("slow", "stubborn") { [parked, stubbornHandler, stubbornCalls, stubbornHandlerDone] () async -> Int in
            // Its cancellation handler blocks (as one waiting for a lock its work holds over blocking
            // I/O would) until the test lets it go; the hour only frees its thread should the test fail.
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    parked.withLock { $0.append(continuation) }
                    stubbornCalls.withLock { $0 += 1 }
                }
            } onCancel: {
                _ = stubbornHandler.wait(timeout: .now() + .seconds(3600))
                stubbornHandlerDone.withLock { $0 = true }
            }
            return 1
        }
        let host = try PluginHost<AppState>(
            plugins: [try scratch.write("patient", plugin), try scratch.write("hasty", plugin)],
            dependencies: dependencies, configuration: configuration)
        #expect(host.loadErrors.isEmpty, "\(host.loadErrors)")
        return host
    }

    /// Waits until `count` calls of `slow.forever` are parked.
    func parkedCalls(_ count: Int) async throws {
        while parked.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    func releaseParked() {
        parked.withLock { $0.forEach { $0.resume() } }
    }

    @Test func theLimitStopsARunAfterSeveralAwaitsAtTheLineThatAwaits() async throws {
        let host = try host(.init(sideEffectTimeLimit: .milliseconds(200)))
        defer { releaseParked() }
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("patient.several").value }
        #expect(error?.kind == .limit)
        #expect(
            error?.description
                == "patient.several: patient/plugin.lua:6: time limit of 0.2 s exceeded while awaiting Swift work")
    }

    @Test func theLimitStopsLuaThatSpinsAfterAnAwait() async throws {
        let host = try host(.init(instructionBudget: nil, callTimeLimit: nil, sideEffectTimeLimit: .milliseconds(200)))
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("patient.spin").value }
        #expect(error?.kind == .limit)
        #expect(error?.description.hasPrefix("patient.spin: patient/plugin.lua:10: time limit of 0.2 s exceeded") == true)
        // The VM is free again: another side effect runs.
        #expect(try await host.dispatch("hasty.quick", returning: Int.self).value == 5)
    }

    /// The shared timer sleeps towards the earliest deadline: one due sooner than the one it sleeps
    /// towards must wake it. The later one is a day away: were the earlier held up by it, the test would
    /// wait until its hang guard ends it.
    @Test(.hangGuard) func anEarlierDeadlineIsNotHeldUpByALaterOne() async throws {
        var configuration = PluginHost<AppState>.Configuration(sideEffectTimeLimit: Self.unreachedLimit)
        configuration.pluginLimits = ["hasty": PluginLimits(sideEffectTimeLimit: .milliseconds(100))]
        let host = try host(configuration)
        let patient = try host.dispatch("patient.wait", returning: Int.self)
        try await parkedCalls(1)
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("hasty.wait").value }
        #expect(error?.kind == .limit)
        releaseParked()
        #expect(try await patient.value == 100)
    }

    /// The timer's one thread fires every run's deadline: cancelling the work of a run it abandons must
    /// not hold it, even when the work's cancellation handler blocks, or every later deadline waits. The
    /// handler blocks until the test lets it go after the later deadline: were that deadline held up by
    /// it, the test would wait until its hang guard ends it.
    @Test(.hangGuard) func aBlockingCancellationHandlerDoesNotHoldUpOtherDeadlines() async throws {
        var configuration = PluginHost<AppState>.Configuration(sideEffectTimeLimit: .milliseconds(300))
        configuration.pluginLimits = ["hasty": PluginLimits(sideEffectTimeLimit: .milliseconds(20))]
        let host = try host(configuration)
        defer { releaseParked() }
        let stubborn = try host.dispatch("hasty.stubborn", returning: Int.self)
        await waitUntil { stubbornCalls.withLock { $0 } == 1 }
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("patient.wait").value }
        #expect(error?.description == "patient.wait: patient/plugin.lua:12: time limit of 0.3 s exceeded while awaiting Swift work")
        #expect(!stubbornHandlerDone.withLock { $0 }, "the deadline waited for a cancellation handler")
        stubbornHandler.signal()
        let stubbornError = await #expect(throws: PluginError.self) { try await stubborn.value }
        #expect(stubbornError?.kind == .limit)
    }

    /// Under a time limit, a run whose awaits answer at once goes on without waiting for a task; one
    /// that suspends is waited for. A run mixing both gets every value, in order. (The test's time limit
    /// only catches a run left waiting for ever: it takes well under a second alone.)
    @Test(.hangGuard) func awaitsThatAnswerAtOnceAndAwaitsThatSuspendMixInOneRun() async throws {
        let host = try host(.init(sideEffectTimeLimit: Self.unreachedLimit))
        for _ in 0..<20 {
            #expect(try await host.dispatch("patient.mixed", returning: Int.self).value == 4321)
            #expect(try await host.dispatch("hasty.quick", returning: Int.self).value == 5)
        }
    }

    /// Cancelling a side effect cancels the Swift work it awaits; Lua sees the error where it awaited.
    @Test(arguments: [Duration?.none, unreachedLimit])
    func cancellingASideEffectCancelsWhatItAwaits(timeLimit: Duration?) async throws {
        let host = try host(.init(sideEffectTimeLimit: timeLimit))
        let handle = try host.dispatch("patient.nap", returning: String.self)
        while naps.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        handle.cancel()
        let result = try await handle.value
        #expect(result.hasPrefix("woken: patient/plugin.lua:25: "), "\(result)")
        #expect(result.contains("CancellationError"), "\(result)")
    }

    /// An await whose work answers without suspending but only after the deadline (it holds its
    /// thread) still ends the run with the limit error: the deadline is not only for runs that suspend.
    @Test func theLimitHoldsForWorkThatBlocksWithoutSuspending() async throws {
        let host = try host(.init(sideEffectTimeLimit: .milliseconds(100)))
        let error = await #expect(throws: PluginError.self) { try await host.dispatch("patient.blocked").value }
        #expect(error?.kind == .limit)
        #expect(
            error?.description
                == "patient.blocked: patient/plugin.lua:29: time limit of 0.1 s exceeded while awaiting Swift work")
    }

    /// A dependency that throws, at once or after suspending, with or without a time limit: Lua
    /// catches the error where it awaited and the run goes on awaiting; uncaught, it ends the run with
    /// the plugin's place.
    @Test(arguments: [Duration?.none, unreachedLimit])
    func aDependencyThatThrowsIsRaisedWhereItWasAwaited(timeLimit: Duration?) async throws {
        let host = try host(.init(sideEffectTimeLimit: timeLimit))
        for group in ["fast", "slow"] {
            let caught = try await host.dispatch("patient.failing", Failing(group: group, n: 7), returning: String.self).value
            #expect(caught == "patient/plugin.lua:33: failure 7 then 7", "\(group)")
            let error = await #expect(throws: PluginError.self) {
                try await host.dispatch("patient.unguarded", Failing(group: group, n: 8)).value
            }
            #expect(error?.kind == .runtime, "\(group)")
            #expect(
                error?.description.hasPrefix("patient.unguarded: patient/plugin.lua:39: failure 8") == true,
                "\(String(describing: error))")
        }
        #expect(try await host.dispatch("hasty.quick", returning: Int.self).value == 5)
    }

    /// Runs whose work ends about when their deadline passes: the timer abandoning the run and the
    /// work ending it race, and each run ends exactly once, with its value or the limit error, the VM
    /// free for the next. (The test's time limit only catches a run that never ends; alone it takes a
    /// second or two.)
    @Test(.hangGuard) func aDeadlinePassingAsTheWorkEndsEndsTheRunOnce() async throws {
        let host = try host(.init(sideEffectTimeLimit: .milliseconds(50)))
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<200 {
                let handle = try host.dispatch("patient.brief", ["n": n % 40 * 2500], returning: Int.self)
                group.addTask {
                    do {
                        #expect(try await handle.value == n % 40 * 2500)
                        return true
                    } catch {
                        #expect((error as? PluginError)?.kind == .limit, "\(error)")
                        #expect("\(error)".contains("patient/plugin.lua:43: time limit of 0.05 s exceeded"), "\(error)")
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.count == 200)
        #expect(try await host.dispatch("hasty.quick", returning: Int.self).value == 5)
    }
}
