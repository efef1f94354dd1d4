import Moonblade
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// A reload's swap goes through the Swift interceptors like any item: what the reload reports is what
/// the swap did, whichever way an interceptor treats it.
@Suite("Reloads through Swift interceptors")
struct ReloadInterceptorTests {
    let scratch = ScratchPlugins()

    enum Refusal: Error { case refused }

    /// What the armed interceptor does with the one item it sees while armed (the swap).
    enum Treatment: Sendable {
        case drop, throwBeforeNext, throwAfterNext
    }

    /// A host on counterx (`add` adds `by`), with an interceptor treating the swap of a reload to
    /// version 2 (`add` adds `by * 10`, `migrate` adds 1,000) as `treatment`; returns what the reload
    /// did, after one `add` of 1.
    func reload(
        treating treatment: Treatment
    ) async throws -> (host: PluginHost<AppState>, events: ReloadLog, result: Result<PluginInfo, PluginError>) {
        let armed = Locked(false)
        let interceptor: StoreInterceptor = { _ in
            { next in
                { item in
                    guard armed.withLock({ $0 }) else { return try next(item) }
                    switch treatment {
                    case .drop: return
                    case .throwBeforeNext: throw Refusal.refused
                    case .throwAfterNext:
                        try next(item)
                        throw Refusal.refused
                    }
                }
            }
        }
        let folder = try scratch.write("counterx", versionedCounter(factor: 1))
        let host = try PluginHost<AppState>(plugins: [folder], interceptors: [interceptor])
        let events = ReloadLog(host)
        _ = try scratch.write(
            "counterx",
            versionedCounter(factor: 10, version: 2, extra: "migrate = function(state) state.counter = state.counter + 1000 end,"))
        armed.withLock { $0 = true }
        let result: Result<PluginInfo, PluginError>
        do throws(PluginError) {
            result = .success(try await host.reload(plugin: "counterx"))
        } catch {
            result = .failure(error)
        }
        armed.withLock { $0 = false }
        try await host.dispatch("counterx.add", ["by": 1]).value
        return (host, events, result)
    }

    /// A swap dropped, or refused before it ran: the reload fails (with the interceptor's error, if it
    /// threw one) and the old code runs on the unmigrated state.
    @Test(arguments: [Treatment.drop, .throwBeforeNext])
    func aSwapThatNeverRanFailsTheReloadAndTheOldCodeRuns(treatment: Treatment) async throws {
        let (host, events, result) = try await reload(treating: treatment)
        let error = try #require(result.failure)
        if treatment == .drop {
            #expect(error.message.contains("an interceptor dropped the swap"))
        } else {
            #expect(error.underlying is Refusal)
        }
        #expect(host.state.counter == 1)
        #expect(host.plugins.map(\.version) == [1])
        await waitUntil { events.all.count == 2 }
        #expect(events.all.last?.hasPrefix("failed counterx") == true)
    }

    /// The swap and its migration went in before the interceptor failed (a Swift interceptor's failure
    /// undoes nothing): the new code runs on the migrated state, so the reload says so.
    @Test func aFailureAfterTheSwapWentInReportsTheNewVersion() async throws {
        let (host, events, result) = try await reload(treating: .throwAfterNext)
        #expect(try result.get().version == 2)
        #expect(host.state.counter == 1_010)
        #expect(host.plugins.map(\.version) == [2])
        await waitUntil { events.all.count == 3 }
        #expect(events.all == ["started counterx", "migrated counterx 1->2", "succeeded counterx v2"])
    }
}

extension Result {
    fileprivate var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
